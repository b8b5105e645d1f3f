import Log
import AccessibilityBus
import KioskEngine
import KioskHost
import KioskSupport
import SystemdNotify
import Threads

/// Screen-reader access in `run`: an `AccessibilityProvider` (AT-SPI2 on its own thread) fed
/// with the page model's accessibility view, and its requests carried to the frame loop the way
/// appearance changes are (`AppearanceLink`): the provider's callback posts the request into a
/// `Mailbox` (at most `queueLimit` wait; more are refused, `DoAction` answers false), which
/// wakes the loop once per batch; the loop's `handle` applies them on its own thread.
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
    /// At most this many requests wait for the frame loop (which takes them all at its next
    /// pass); more are refused (`DoAction` and `GrabFocus` answer false). A screen reader sends
    /// one at a time; a client that floods DoAction used to queue every call it could send within
    /// a frame (about 3,000 in Tests/e2e/accessibility-fuzz.sh) for that one frame, and all it
    /// sends while the frame loop is held up.
    static let queueLimit = 4

    let provider: AccessibilityProvider
    private let onCommit: (KioskOutput) -> Void
    private let title: String
    private let requests = Mailbox<AccessibilityRequest>(limit: LiveAccessibility.queueLimit)
    /// A snapshot is wanted at the next `pageShown` (loop thread only).
    private var snapshotWanted = false

    init(options: AccessibilityProviderOptions, title: String, onCommit: @escaping (KioskOutput) -> Void) {
        let requests = self.requests
        self.onCommit = onCommit
        self.title = title
        provider = AccessibilityProvider(options: options, log: { line, debug in
            // The debug line (no accessibility bus) goes to the journal only, where it is filtered.
            if debug { Log.debug(line) } else { Log.info(line) }
        }, onRequest: { request in
            requests.post(request, overLimit: request == .snapshotWanted)
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
        requests.attach { poster.wake() }
    }

    func handle(app: KioskApp, now: Double) {
        for r in requests.drain() {
            switch r {
            case .activate(let control):
                if let output = app.activateControl(control, at: now) { onCommit(output) }
            case .focus(let control):
                app.moveFocus(to: control)
            case .snapshotWanted:
                snapshotWanted = true
            }
        }
    }

    func pageShown(app: KioskApp, placement: ScreenPlacement) {
        let forced = snapshotWanted
        snapshotWanted = false
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

/// Several host event handlers behind the frame loop's one (each drains its own mailboxes).
final class HostEventHandlers: HostEventHandler {
    let all: [HostEventHandler]
    init(_ all: [HostEventHandler]) { self.all = all }
    func start(app: KioskApp, poster: HostEventPoster, now: Double) { for h in all { h.start(app: app, poster: poster, now: now) } }
    func handle(app: KioskApp, now: Double) { for h in all { h.handle(app: app, now: now) } }
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
    var controlsDisplay: Bool { all.contains { $0.controlsDisplay } }
    /// The last handler's request wins (one handler sends them today: the fleet).
    func takeDisplayRequest() -> DisplayRequest? {
        var request: DisplayRequest?
        for h in all { if let r = h.takeDisplayRequest() { request = r } }
        return request
    }
    func displayShown(_ state: DisplayState) { for h in all { h.displayShown(state) } }
    /// The oldest arrival any handler reports.
    func takeCommandArrival() -> Double? {
        var oldest: Double?
        for h in all { if let a = h.takeCommandArrival() { oldest = min(oldest ?? a, a) } }
        return oldest
    }
}
