/// A first-in first-out list that frees each element as it is taken (a taken slot is emptied at
/// once, so that what it held, a structure's geometry, goes when its job is done, not when the
/// array is next compacted) and compacts when more than half of it is taken. The queue inside
/// `BlockingPool`, the GL thread and `BlockingQueue`; not thread-safe itself (they hold it in a lock).
public struct FIFO<Element> {
    private var items: [Element?] = []
    private var head = 0

    public init() {}

    public var count: Int { items.count - head }
    public var isEmpty: Bool { head == items.count }

    public mutating func append(_ element: Element) { items.append(element) }

    /// The oldest element, taken out; nil when there is none.
    public mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        items[head] = nil
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFO: Sendable where Element: Sendable {}
