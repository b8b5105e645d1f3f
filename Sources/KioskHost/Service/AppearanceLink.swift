import Appearance
import AppearanceBus
import Glibc
import Synchronization
import Threads

/// The live appearance sources in the SDL host: owns an `AppearanceRunner` (portal, light
/// sensor, schedule, preferences-file watcher on one helper thread) and carries its events to
/// the frame loop through a `Mailbox` of `Arrival`s: the runner's callback only posts the event
/// with its monotonic arrival time (the mailbox wakes the loop once per batch through
/// `HostEventPoster`: an SDL user event, which wakes `SDL_WaitEvent`); the loop's
/// `HostEventHandler` then calls `drain()` on its own thread. Events queued before the poster
/// is attached (before SDL's event queue exists) are not lost: `attach` wakes the loop for them.
///
/// Nothing polls: idle, the runner thread sleeps in `poll()` and the frame loop in
/// `SDL_WaitEvent`.
public final class AppearanceLink: Sendable {
    /// One runner event and the monotonic second (`MonotonicClock`) it arrived at on the runner thread.
    public struct Arrival: Sendable {
        public var event: AppearanceEvent
        public var at: Double
    }

    public let runner: AppearanceRunner
    private let mailbox = Mailbox<Arrival>()
    /// Set once the runner published its first arbitrated appearance.
    private final class Flag: Sendable { let raised = Mutex(false) }
    private let firstAppearance = Flag()

    /// Creates the runner (not started).
    public init(options: AppearanceRunnerOptions) {
        let mailbox = self.mailbox, first = self.firstAppearance
        runner = AppearanceRunner(options: options) { event in
            if case .systemAppearance = event { first.raised.withLock { $0 = true } }
            mailbox.post(Arrival(event: event, at: MonotonicClock.seconds()))
        }
    }

    /// Starts the runner thread; false when it could not be created.
    @discardableResult
    public func start() -> Bool { runner.start() }

    /// From now on, queued events wake the loop through `poster`; wakes it at once when events
    /// are already waiting.
    public func attach(_ poster: HostEventPoster) { mailbox.attach { poster.wake() } }

    /// Waits (at most `timeout` seconds) until the runner has published its first arbitrated
    /// appearance, so the first frame can already show it; returns it, or nil on timeout.
    public func waitForFirstAppearance(timeout: Double) -> SystemAppearance? {
        let end = MonotonicClock.seconds() + timeout
        while !firstAppearance.raised.withLock({ $0 }) {
            if MonotonicClock.seconds() >= end { return nil }
            usleep(2000)
        }
        return runner.current
    }

    /// Takes every queued event, oldest first.
    public func drain() -> [Arrival] { mailbox.drain() }

    /// Stops the runner (ReleaseLight, buses closed, thread joined). Safe to call twice.
    public func stop() { runner.stop() }
}
