import Appearance
import KioskEngine
import AppearanceBus
import CSDL2
import Glibc
import Synchronization

/// The live appearance sources in the SDL host: owns an `AppearanceRunner` (portal, light
/// sensor, schedule, preferences-file watcher on one helper thread) and carries its events to
/// the SDL loop. The runner's callback only queues the event (with its CLOCK_MONOTONIC arrival
/// time) and pushes one SDL user event of a type registered with `SDL_RegisterEvents`, which
/// wakes `SDL_WaitEvent`; the loop then calls `drain()` on its own thread. Events queued before
/// SDL's event queue exists are not lost: the first drain (before the first frame) takes them.
///
/// Nothing polls: idle, the runner thread sleeps in `poll()` and the SDL loop in
/// `SDL_WaitEvent`.
public final class AppearanceLink: Sendable {
    /// One runner event and the CLOCK_MONOTONIC second it arrived at on the runner thread.
    public struct Arrival: Sendable {
        public var event: AppearanceEvent
        public var at: Double
    }

    public let runner: AppearanceRunner
    /// The SDL user event type that means "appearance events are queued".
    public let eventType: UInt32
    private final class Shared: Sendable {
        let queue = Mutex<[Arrival]>([])
        let firstAppearance = Mutex(false)
    }
    private let shared: Shared

    /// Registers the SDL event type and creates the runner (not started).
    public init(options: AppearanceRunnerOptions) {
        let type = SDL_RegisterEvents(1)
        let eventType = type == UInt32.max ? SDL_USEREVENT.rawValue : type
        let shared = Shared()
        self.eventType = eventType
        self.shared = shared
        runner = AppearanceRunner(options: options) { event in
            let now = AppearanceLink.monotonicSeconds()
            let wasEmpty = shared.queue.withLock { q -> Bool in
                q.append(Arrival(event: event, at: now))
                return q.count == 1
            }
            if case .systemAppearance = event { shared.firstAppearance.withLock { $0 = true } }
            // One wake-up per batch: the loop drains everything queued at once.
            if wasEmpty {
                var e = SDL_Event()
                e.type = eventType
                e.user.type = eventType
                _ = SDL_PushEvent(&e)
            }
        }
    }

    /// Starts the runner thread; false when it could not be created.
    @discardableResult
    public func start() -> Bool { runner.start() }

    /// Waits (at most `timeout` seconds) until the runner has published its first arbitrated
    /// appearance, so the first frame can already show it; returns it, or nil on timeout.
    public func waitForFirstAppearance(timeout: Double) -> SystemAppearance? {
        let end = Self.monotonicSeconds() + timeout
        while !shared.firstAppearance.withLock({ $0 }) {
            if Self.monotonicSeconds() >= end { return nil }
            usleep(2000)
        }
        return runner.current
    }

    /// Takes every queued event, oldest first.
    public func drain() -> [Arrival] {
        shared.queue.withLock { q in
            let all = q
            q.removeAll()
            return all
        }
    }

    /// Stops the runner (ReleaseLight, buses closed, thread joined).
    public func stop() { runner.stop() }

    /// CLOCK_MONOTONIC in seconds (the clock the e2e mocks stamp their emits with).
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
