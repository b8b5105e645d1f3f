import CSDL2
import KioskEngine

/// Events the host itself does not know about (e.g. a system-appearance change found by a
/// background thread). Each source posts its own typed events into a `Mailbox` (target
/// `Threads`) attached to the poster's `wake`; the frame loop wakes up and calls `handle` on
/// the loop thread, where the handler drains its mailboxes and may touch the app. One SDL user
/// event type is registered per run: a wake-up carries nothing, the mailboxes carry the events.
public protocol HostEventHandler: AnyObject {
    /// Once, on the loop thread, after the app is made and before its first frame.
    func start(app: KioskApp, poster: HostEventPoster, now: Double)
    /// After a wake-up, on the loop thread: take what the mailboxes hold. `now` is the host
    /// clock (the app's time base).
    func handle(app: KioskApp, now: Double)
    /// Once, on the loop thread, when the loop has ended (before the host returns).
    func stop()
    /// After each presented frame, on the loop thread (default: nothing). For timing notes such
    /// as "the first frame after this event was presented at …".
    func framePresented()
    /// At the end of each pass of the loop (after its events and frame), on the loop thread:
    /// the page as it is now and where it is on the screen (an accessibility bridge sends what
    /// changed). Default: nothing.
    func pageShown(app: KioskApp, placement: ScreenPlacement)
    /// At the end of each pass of the loop, on the loop thread: do what is due (e.g. write
    /// the summary lines of a rate-limited log) and return in how many seconds it wants this
    /// call again; the idle loop then wakes no later (nil: no need). Default: nil.
    func passEnded() -> Double?
    /// True when the handler sends display commands (`takeDisplayRequest`): the loop keeps the
    /// screen's sleep ready even without `display.sleep`. Default: false.
    var controlsDisplay: Bool { get }
    /// After each `handle`, on the loop thread: a display command to carry out (the last one
    /// asked), nil for none. Default: nil.
    func takeDisplayRequest() -> DisplayRequest?
    /// At the end of each pass, before `pageShown`: what the host does (`HostFacts`: whether
    /// the page is shown, the screen sleeps or no display is connected; the presenter, the
    /// input devices, the frames presented). Default: nothing.
    func hostShown(_ facts: HostFacts)
    /// A note appended to systemd's STATUS ("…; the choice dark is not saved (trying again)"),
    /// nil when there is nothing to add. Read after each pass. Default: nil.
    var statusNote: String? { get }
    /// After each `handle`, on the loop thread: when (CLOCK_MONOTONIC seconds, `MonotonicClock`)
    /// the oldest remote command that changed the page arrived, since the last call; nil for
    /// none. The loop's latency ledger times it to the first frame that shows it (kind
    /// `command`). Default: nil.
    func takeCommandArrival() -> Double?
}

extension HostEventHandler {
    public func framePresented() {}
    public func pageShown(app: KioskApp, placement: ScreenPlacement) {}
    public func passEnded() -> Double? { nil }
    public var statusNote: String? { nil }
    public var controlsDisplay: Bool { false }
    public func takeDisplayRequest() -> DisplayRequest? { nil }
    public func hostShown(_ facts: HostFacts) {}
    public func takeCommandArrival() -> Double? { nil }
}

/// A display command from outside the kiosk (the fleet's `display/set`).
public enum DisplayRequest: Equatable, Sendable {
    /// Wake the screen, as a touch does.
    case on
    /// The screen's sleep now, until a touch or `on`.
    case sleep
}

/// What the display does now.
public enum DisplayState: String, Equatable, Sendable {
    /// The page is shown.
    case on
    /// The screen sleeps (`display.sleep`, or a command).
    case asleep
    /// No display is connected (KMS/DRM).
    case none
}

/// Wakes the frame loop with a custom event; safe from any thread (SDL_PushEvent is).
public struct HostEventPoster: Sendable {
    /// The registered SDL event type.
    public let eventType: UInt32

    /// Wakes the loop; false when SDL's queue refused it (full, or SDL gone).
    @discardableResult
    public func wake() -> Bool {
        var event = SDL_Event()
        event.type = eventType
        guard SDL_PushEvent(&event) == 1 else { return false }
        // SDL runs its event watches (`IdleWait`'s among them) before the event is in its
        // queue: a loop the watch woke could look, find nothing yet, and sleep on. Once it is
        // in the queue, the idle wait is woken again.
        IdleWait.eventQueued()
        return true
    }

    /// Registers one user event type with SDL (after SDL_Init); nil when SDL has none left.
    static func register() -> HostEventPoster? {
        let t = SDL_RegisterEvents(1)
        return t == UInt32.max ? nil : HostEventPoster(eventType: t)
    }
}
