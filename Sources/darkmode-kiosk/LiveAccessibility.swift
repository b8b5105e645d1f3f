import Log
import AccessibilityBus
import KioskEngine
import KioskHost
import KioskSupport
import Synchronization
import SystemdNotify

/// Screen-reader access in `run`: an `AccessibilityProvider` (AT-SPI2 on its own thread) fed
/// with the page model's accessibility view, and its requests carried to the frame loop the way
/// appearance changes are (`AppearanceLink`): the provider's callback queues the request (at
/// most `queueLimit` wait; more are refused, `DoAction` answers false) and,
/// when the queue was empty, posts one host event; the loop's `handle` applies them on its own
/// thread.
///
/// - `.activate`: `KioskApp.activateControl` — the focus moves to the control, then it commits
///   exactly as a tap (animation, the other toggle, the preference saved through `onCommit`,
///   STATUS= updated by the loop).
/// - `.focus`: `KioskApp.moveFocus` (the ring shows).
/// - `.snapshotWanted`: the next `pageShown` sends a snapshot even when nothing changed.
///
/// After each loop pass (`pageShown`) the page's accessibility view and its place on the
/// screen go to the provider, which sends the events that changed; only while an accessibility
/// bus exists (otherwise nothing here runs on the frame path).
final class LiveAccessibility: HostEventHandler {
    /// The host event code of a queued request ("A1").
    static let eventCode: Int32 = 0x4131
    /// At most this many requests wait for the frame loop (which takes them all at its next
    /// pass); more are refused (`DoAction` and `GrabFocus` answer false). A screen reader sends
    /// one at a time; a client that floods DoAction used to queue every call it could send within
    /// a frame (about 3,000 in Tests/e2e/accessibility-fuzz.sh) for that one frame, and all it
    /// sends while the frame loop is held up.
    static let queueLimit = 4

    let provider: AccessibilityProvider
    private let onCommit: (KioskOutput) -> Void
    private let title: String
    private let shared: Shared

    private final class Shared: Sendable {
        struct State {
            var queue: [AccessibilityRequest] = []
            var poster: HostEventPoster?
            var snapshotWanted = false
        }
        let state = Mutex(State())
    }

    init(options: AccessibilityProviderOptions, title: String, onCommit: @escaping (KioskOutput) -> Void) {
        let shared = Shared()
        self.shared = shared
        self.onCommit = onCommit
        self.title = title
        provider = AccessibilityProvider(options: options, log: { line, debug in
            // The debug line (no accessibility bus) goes to the journal only, where it is filtered.
            if debug { Log.debug(line) } else { Log.info(line) }
        }, onRequest: { request in
            let (taken, poster) = shared.state.withLock { s -> (Bool, HostEventPoster?) in
                if request != .snapshotWanted && s.queue.count >= Self.queueLimit { return (false, nil) }
                s.queue.append(request)
                return (true, s.queue.count == 1 ? s.poster : nil)
            }
            poster?.post(code: LiveAccessibility.eventCode)
            return taken
        })
    }

    /// The options from the environment: `AT_SPI_BUS_ADDRESS`, the page's language as locale.
    static func options(environment env: [String: String], language: String) -> AccessibilityProviderOptions {
        let address = env["AT_SPI_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
        return AccessibilityProviderOptions(accessibilityBusAddress: address, locale: language == "zh-Hans" ? "zh_CN" : "en_US")
    }

    func start() {
        if !provider.start() { Log.error("accessibility: could not start its thread; screen readers cannot see the page") }
    }

    // MARK: HostEventHandler

    func start(app: KioskApp, poster: HostEventPoster, now: Double) {
        let waiting = shared.state.withLock { s -> Bool in
            s.poster = poster
            return !s.queue.isEmpty
        }
        if waiting { poster.post(code: Self.eventCode) }
    }

    func handle(code: Int32, app: KioskApp, now: Double) {
        guard code == Self.eventCode else { return }
        let requests = shared.state.withLock { s -> [AccessibilityRequest] in
            let all = s.queue
            s.queue.removeAll()
            return all
        }
        for r in requests {
            switch r {
            case .activate(let control):
                if let output = app.activateControl(control, at: now) { onCommit(output) }
            case .focus(let control):
                app.moveFocus(to: control)
            case .snapshotWanted:
                shared.state.withLock { $0.snapshotWanted = true }
            }
        }
    }

    func pageShown(app: KioskApp, placement: ScreenPlacement) {
        let forced = shared.state.withLock { s -> Bool in
            defer { s.snapshotWanted = false }
            return s.snapshotWanted
        }
        guard forced || provider.wantsSnapshots else { return }
        provider.update(Self.snapshot(app.accessibilityModel, placement: placement, title: title))
    }

    func stop() { provider.stop() }

    /// The page's accessibility view placed on the screen.
    static func snapshot(_ page: PageAccessibility, placement: ScreenPlacement, title: String) -> AccessibleSnapshot {
        func screen(_ r: (x: Int, y: Int, width: Int, height: Int)) -> ScreenRect {
            ScreenRect(x: Int32(clamping: r.x), y: Int32(clamping: r.y), width: Int32(clamping: r.width), height: Int32(clamping: r.height))
        }
        return AccessibleSnapshot(title: title, page: page, window: screen(placement.windowRect),
                                  controls: page.controls.map { screen(placement.screenRect(ofPage: $0.frame)) })
    }
}

/// Several host event handlers behind the frame loop's one (each ignores the others' codes).
final class HostEventHandlers: HostEventHandler {
    let all: [HostEventHandler]
    init(_ all: [HostEventHandler]) { self.all = all }
    func start(app: KioskApp, poster: HostEventPoster, now: Double) { for h in all { h.start(app: app, poster: poster, now: now) } }
    func handle(code: Int32, app: KioskApp, now: Double) { for h in all { h.handle(code: code, app: app, now: now) } }
    func stop() { for h in all { h.stop() } }
    func framePresented() { for h in all { h.framePresented() } }
    func pageShown(app: KioskApp, placement: ScreenPlacement) { for h in all { h.pageShown(app: app, placement: placement) } }
    /// Every loop pass: no array made.
    func passEnded() -> Double? {
        var due: Double?
        for h in all { if let d = h.passEnded() { due = min(due ?? d, d) } }
        return due
    }
    var statusNote: String? {
        var note: String?
        for h in all { if let n = h.statusNote { note = note.map { $0 + "; " + n } ?? n } }
        return note
    }
}
