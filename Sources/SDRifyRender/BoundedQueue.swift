import Foundation

/// A blocking FIFO of fixed capacity between two pipeline threads. `close()` ends it: the consumer drains
/// what is queued, then gets nil; a blocked producer is released and told to stop. Bounded queues keep memory
/// constant whatever the clip's length.
final class BoundedQueue<Element>: @unchecked Sendable {
    private var items: [Element?] = []  // popped slots are set to nil at once: they may hold large pictures
    private var head = 0
    private let capacity: Int
    private var closed = false
    private let condition = NSCondition()

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Waits for room; returns false if the queue was closed (the consumer has stopped).
    @discardableResult
    func push(_ item: Element) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while items.count - head >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Waits for an item; nil once the queue is closed and empty.
    func pop() -> Element? {
        condition.lock(); defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = nil
        head += 1
        if head > 32 { items.removeFirst(head); head = 0 }
        condition.broadcast()
        return item
    }

    func close() {
        condition.lock(); closed = true; condition.broadcast(); condition.unlock()
    }
}
