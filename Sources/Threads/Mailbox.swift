import Synchronization

/// Events from helper threads to the frame loop, each source with its own `Mailbox` of its own
/// event type: `post` (any thread) queues an event and, when the queue was empty, calls the
/// wake-up once; the loop, woken, takes the whole batch with `drain` (oldest first). So a burst
/// costs the loop one wake-up, and nothing is lost before the loop exists: events posted before
/// `attach` wait, and attaching wakes the loop for them.
///
/// With a `limit`, at most that many events wait; more are refused (`post` returns false)
/// unless posted `overLimit` (events that must not be lost, e.g. "send a snapshot").
public final class Mailbox<Event: Sendable>: Sendable {
    private struct State {
        var queue: [Event] = []
        var wake: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())
    public let limit: Int?

    public init(limit: Int? = nil) { self.limit = limit }

    /// Queues `event`; false when refused (the limit is reached). Any thread.
    @discardableResult
    public func post(_ event: Event, overLimit: Bool = false) -> Bool {
        let (taken, wake) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            if !overLimit, let limit, s.queue.count >= limit { return (false, nil) }
            s.queue.append(event)
            // One wake-up per batch: the loop drains everything queued at once.
            return (true, s.queue.count == 1 ? s.wake : nil)
        }
        wake?()
        return taken
    }

    /// From now on posts wake the loop through `wake`; wakes it at once when events wait.
    public func attach(_ wake: @escaping @Sendable () -> Void) {
        let waiting = state.withLock { s -> Bool in
            s.wake = wake
            return !s.queue.isEmpty
        }
        if waiting { wake() }
    }

    /// Takes every queued event, oldest first.
    public func drain() -> [Event] {
        state.withLock { s in
            var batch: [Event] = []
            swap(&batch, &s.queue)
            return batch
        }
    }

    /// How many events wait.
    public var count: Int { state.withLock { $0.queue.count } }
}
