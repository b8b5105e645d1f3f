import KioskEngine
import KioskHost

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
    func hostShown(_ facts: HostFacts) { for h in all { h.hostShown(facts) } }
    /// The oldest arrival any handler reports.
    func takeCommandArrival() -> Double? {
        var oldest: Double?
        for h in all { if let a = h.takeCommandArrival() { oldest = min(oldest ?? a, a) } }
        return oldest
    }
}
