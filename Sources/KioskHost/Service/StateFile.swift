import Appearance
import KioskEngine
import KioskSupport
import Log
import Threads

/// The kiosk's state for machines (`DARKMODE_KIOSK_STATE_FILE`; under systemd by default
/// `state.json` in the unit's `RuntimeDirectory=`): one JSON object — the page's preference, what
/// is shown and what decided it, and `HostFacts` (the display, the presenter, who has the card,
/// who reads input and the devices it opened, the output, the frames presented). Scripts,
/// monitoring and the VM and e2e scenarios read it instead of parsing log lines.
///
/// The file is replaced atomically (a reader sees the old object or the new one, never a mix)
/// but not synced: it describes this run only. It is written at the end of a loop pass when
/// what it says changed, and for the frame counter alone at most once a second (so an
/// animation costs one small write a second, and the last count lands within a second of the
/// last frame); never while nothing changes. A write that fails is said in one line, and again
/// only after one has succeeded.
public final class StateFile: HostEventHandler {
    /// Seconds between writes that only move the frame counter.
    public static let frameCountInterval = 1.0

    public let path: String
    private var writer = AtomicFileWriter()
    private var facts: HostFacts?
    private var written: (page: PageState, facts: HostFacts)?
    private var writtenAt = -Double.infinity
    private var failing = false

    public init(path: String) {
        self.path = path
        writer.durable = false
        writer.newFileMode = 0o644
    }

    public func start(app: KioskApp, poster: HostEventPoster, now: Double) {}
    public func handle(app: KioskApp, now: Double) {}
    public func stop() {}

    public func hostShown(_ facts: HostFacts) { self.facts = facts }

    public func pageShown(app: KioskApp, placement: ScreenPlacement) {
        guard let facts else { return }
        let page = PageState(app)
        let now = MonotonicClock.seconds()
        if let w = written, w.page == page, w.facts.sameApartFromFrames(facts),
           w.facts.framesPresented == facts.framesPresented || now - writtenAt < Self.frameCountInterval {
            return
        }
        write(page, facts, now: now)
    }

    /// A frame count not written yet is due `frameCountInterval` after the last write.
    public func passEnded() -> Double? {
        guard let w = written, let facts, w.facts.framesPresented != facts.framesPresented else { return nil }
        return max(0, writtenAt + Self.frameCountInterval - MonotonicClock.seconds())
    }

    private func write(_ page: PageState, _ facts: HostFacts, now: Double) {
        do {
            try writer.write(Array(Self.text(page: page, facts: facts).utf8), to: path)
            if failing { Log.info("state file \(path): written again") }
            failing = false
        } catch {
            if !failing { Log.warning("state file: \(error) (tried again when the state changes)") }
            failing = true
        }
        written = (page, facts)
        writtenAt = now
    }

    /// The page's part of the state.
    public struct PageState: Equatable, Sendable {
        public var preference: AppearancePreference
        public var dark: Bool
        /// What decided the shown appearance (`KioskApp.appearanceDecider`).
        public var source: String

        public init(preference: AppearancePreference, dark: Bool, source: String) {
            self.preference = preference
            self.dark = dark
            self.source = source
        }

        init(_ app: KioskApp) {
            self.init(preference: app.appearancePreference, dark: app.isDarkMode, source: app.appearanceDecider)
        }
    }

    /// The file's text (pure): a pretty-printed JSON object, keys in a fixed order.
    public static func text(page: PageState, facts: HostFacts) -> String {
        func string(_ s: String) -> JSONValue { .string(s) }
        func int(_ n: Int) -> JSONValue { .number(JSONNumber(Double(n))!) }
        func object(_ members: [(String, JSONValue)]) -> JSONValue {
            .object(JSONObject(members.map { JSONMember(key: $0.0, value: $0.1) }))
        }
        let devices = facts.inputDevices.devices.map {
            object([("name", string($0.name)), ("opened", int($0.opened)), ("open", int($0.open))])
        }
        return JSONWriter.pretty(object([
            ("preference", string(page.preference.rawValue)),
            ("shown", string(page.dark ? "dark" : "light")),
            ("source", string(page.source)),
            ("display", string(facts.display.rawValue)),
            ("presenter", string(facts.presenter)),
            ("videoDriver", string(facts.videoDriver)),
            ("card", facts.card.map { string($0.rawValue) } ?? .null),
            ("input", string(facts.input.rawValue)),
            ("output", object([("width", int(facts.outputWidth)), ("height", int(facts.outputHeight)),
                               ("rotation", int(facts.rotation))])),
            ("framesPresented", int(facts.framesPresented)),
            ("inputDevices", .array(devices)),
        ]))
    }
}
