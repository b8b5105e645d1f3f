import Appearance
import AppearanceBus
import Glibc
import Synchronization

/// The live appearance sources in the SDL host: owns an `AppearanceRunner` (portal, light
/// sensor, schedule, preferences-file watcher on one helper thread) and carries its events to
/// the frame loop. The runner's callback only queues the event with its CLOCK_MONOTONIC arrival
/// time and, when the queue was empty, posts one host event (`HostEventPoster`: an SDL user
/// event, which wakes `SDL_WaitEvent`); the loop's `HostEventHandler` then calls `drain()` on its
/// own thread. Events queued before the poster is attached (before SDL's event queue exists)
/// are not lost: `attach` posts for them.
///
/// Nothing polls: idle, the runner thread sleeps in `poll()` and the frame loop in
/// `SDL_WaitEvent`.
public final class AppearanceLink: Sendable {
    /// One runner event and the CLOCK_MONOTONIC second it arrived at on the runner thread.
    public struct Arrival: Sendable {
        public var event: AppearanceEvent
        public var at: Double
    }

    /// The host event code the link posts.
    public static let eventCode: Int32 = 0x4150 // "AP"

    public let runner: AppearanceRunner

    private final class Shared: Sendable {
        struct State {
            var queue: [Arrival] = []
            var poster: HostEventPoster?
            var firstAppearance = false
        }
        let state = Mutex(State())
    }
    private let shared: Shared

    /// Creates the runner (not started).
    public init(options: AppearanceRunnerOptions) {
        let shared = Shared()
        self.shared = shared
        runner = AppearanceRunner(options: options) { event in
            let arrival = Arrival(event: event, at: AppearanceLink.monotonicSeconds())
            let poster = shared.state.withLock { s -> HostEventPoster? in
                s.queue.append(arrival)
                if case .systemAppearance = event { s.firstAppearance = true }
                // One wake-up per batch: the loop drains everything queued at once.
                return s.queue.count == 1 ? s.poster : nil
            }
            poster?.post(code: AppearanceLink.eventCode)
        }
    }

    /// Starts the runner thread; false when it could not be created.
    @discardableResult
    public func start() -> Bool { runner.start() }

    /// From now on, queued events wake the loop through `poster`; posts at once when events
    /// are already waiting.
    public func attach(_ poster: HostEventPoster) {
        let waiting = shared.state.withLock { s -> Bool in
            s.poster = poster
            return !s.queue.isEmpty
        }
        if waiting { poster.post(code: Self.eventCode) }
    }

    /// Waits (at most `timeout` seconds) until the runner has published its first arbitrated
    /// appearance, so the first frame can already show it; returns it, or nil on timeout.
    public func waitForFirstAppearance(timeout: Double) -> SystemAppearance? {
        let end = Self.monotonicSeconds() + timeout
        while !shared.state.withLock({ $0.firstAppearance }) {
            if Self.monotonicSeconds() >= end { return nil }
            usleep(2000)
        }
        return runner.current
    }

    /// Takes every queued event, oldest first.
    public func drain() -> [Arrival] {
        shared.state.withLock { s in
            let all = s.queue
            s.queue.removeAll()
            return all
        }
    }

    /// Stops the runner (ReleaseLight, buses closed, thread joined). Safe to call twice.
    public func stop() { runner.stop() }

    /// CLOCK_MONOTONIC in seconds (the clock the e2e mocks stamp their emits with).
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
