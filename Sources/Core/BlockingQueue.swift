/// A bounded first-in first-out queue between threads: `push` waits while it is full (so a fast
/// producer cannot fill memory), `pop` waits while it is empty and returns nil once closed and drained.
public final class BlockingQueue<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var items = FIFO<Element>()
        var closed = false
        var count: Int { items.count }
    }
    private let capacity: Int
    private let state = Monitor(State())

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public func push(_ item: Element) {
        let capacity = capacity
        state.wait(until: { $0.count < capacity || $0.closed }) { $0.items.append(item) }
    }

    public func pop() -> Element? {
        state.wait(until: { $0.count > 0 || $0.closed }) { $0.items.popFirst() }
    }

    public func close() {
        state.update { $0.closed = true }
    }
}
