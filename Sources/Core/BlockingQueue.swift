import Foundation

/// A bounded first-in first-out queue between threads: `push` waits while it is full (so a fast
/// producer cannot fill memory), `pop` waits while it is empty and returns nil once closed and drained.
public final class BlockingQueue<Element>: @unchecked Sendable {
    private var items: [Element] = []
    private var head = 0
    private let capacity: Int
    private var closed = false
    private let condition = NSCondition()

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public func push(_ item: Element) {
        condition.lock()
        while items.count - head >= capacity && !closed { condition.wait() }
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    public func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }

    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
