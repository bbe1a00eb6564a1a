/// A bounded first-in first-out queue between threads: `push` waits while it is full (so a fast
/// producer cannot fill memory), `pop` waits while it is empty and returns nil once closed and drained.
public final class BlockingQueue<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var items: [Element] = []
        var head = 0
        var closed = false
        var count: Int { items.count - head }
    }
    private let capacity: Int
    private let state = Monitor(State())

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public func push(_ item: Element) {
        let capacity = capacity
        state.wait(until: { $0.count < capacity || $0.closed }) { $0.items.append(item) }
    }

    public func pop() -> Element? {
        state.wait(until: { $0.count > 0 || $0.closed }) { s -> Element? in
            guard s.head < s.items.count else { return nil }
            let item = s.items[s.head]
            s.head += 1
            if s.head > 64 && s.head * 2 > s.items.count {
                s.items.removeFirst(s.head)
                s.head = 0
            }
            return item
        }
    }

    public func close() {
        state.update { $0.closed = true }
    }
}
