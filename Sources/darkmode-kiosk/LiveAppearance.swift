import Log
import Appearance
import AppearanceBus
import Glibc
import KioskEngine
import KioskHost
import KioskSupport
import KioskTools
import LogLimit
import Synchronization

/// "System" made live in `run`: the appearance sources (desktop portal, light sensor,
/// schedule) and the preferences file watched for other programs' rewrites, through an
/// `AppearanceLink`; the frame loop hands its events here (`HostEventHandler`).
///
/// - `.systemAppearance`: `KioskApp.setSystemAppearance` (animates like a tap while the
///   preference is system; nothing is stored).
/// - `.preferencesFileChanged`: the file is re-read exactly as at start (`PreferencesStore.load`
///   on a reader of its own — the saver's store belongs to the writer thread: a broken file is
///   kept aside and logged, the default preference used) and applied with
///   `setAppearancePreference` (animates, nothing saved back).
/// - `.log`: one line on stderr.
///
/// The saver's store announces each own save's bytes and file identity (`willWrite` →
/// `expectOwnWrite`, on the writer thread), so the kiosk's own writes are not taken for another
/// program's, while a later file with the same bytes is.
///
/// After the save of the latest commit is in place (`OwnSaveSignal`, posted from the writer
/// thread as `savedEventCode`), when the page followed another program's change since that
/// commit, the file is read again and the page follows it when it differs: the save merged the
/// kiosk's key over the other program's file. Page and file agree after every race; saves
/// without such a race cost the loop thread no file read.
///
/// The portal's `contrast` and `reduced-motion` reach the app inside the `SystemAppearance`
/// (its `hints`); the app applies them unless the options force them on, and a change of
/// either is logged.
///
/// With `DARKMODE_KIOSK_TIMING=1`, an event that changed the mode, the high contrast or Reduce
/// Motion is reported with the CLOCK_MONOTONIC times it arrived and the next frame was
/// presented (`timing: appearance portal|contrast|reduced-motion|preferences file arrived …`).
///
/// Every line about something that can repeat — another program's rewrite, a bad file kept
/// aside, a contrast, motion or text-size flip, the runner's lines, the saver's — goes through
/// `logs` (a `SharedLogLimiter`: a few lines a minute per cause, then a summary; issue 39,
/// item 6), whose due summaries are written at the end of a loop pass (`passEnded`) and at stop.
final class LiveAppearance: HostEventHandler {
    let link: AppearanceLink
    private let reader: PreferencesStore?
    private let timing: Bool
    private var pendingNotes: [String] = []
    /// The host event code of "an own save is in place".
    static let savedEventCode: Int32 = 0x5053 // "PS"
    /// The host event code of "a save failed or succeeded after failures" (only wakes the
    /// loop, whose pass then sends the STATUS with or without `statusNote`).
    static let saveStateEventCode: Int32 = 0x5057 // "PW"
    /// Told by the writer thread when an own save is in place.
    let ownSaves = OwnSaveSignal()
    /// The latest commit's number (the saver's), read on the loop thread.
    var latestCommit: () -> Int = { 0 }
    /// The latest commit's number when the page last followed another program's change: only
    /// then can a save of that commit leave page and file apart (no file read after other saves).
    private var followedDuringCommit: Int?
    /// Seconds `run` waits at most (while SDL opens the window) for the sources' first answer,
    /// so the first frame already shows the system's mode.
    static let firstAnswerTimeout = 0.5

    /// The rate-limited log of repeating causes (shared with the saver's lines).
    let logs: SharedLogLimiter
    /// Lines per cause and window before they are only counted.
    static let linesPerCause = 3
    /// Other rate-limited logs whose summaries this loop writes too (the saver's).
    var alsoFlushed: [SharedLogLimiter] = []
    /// For `statusNote`: the saver's note while a choice is not saved.
    var unsavedNote: () -> String? = { nil }

    init(settings: RunSettings, store: PreferencesStore?, timing: Bool, logs: SharedLogLimiter) {
        var options = AppearanceRunnerOptions(config: settings.appearance, preferencesPath: settings.preferencesPath)
        options.logInterval = logs.interval
        link = AppearanceLink(options: options)
        self.logs = logs
        reader = settings.preferencesPath.map(PreferencesStore.init(path:))
        self.timing = timing
        let runner = link.runner
        store?.willWrite = { f in runner.expectOwnWrite(OwnWrite(bytes: f.bytes, device: f.device, inode: f.inode)) }
    }

    /// Starts the sources. The preferences file's folder is created first (as the first save
    /// would), so other programs' changes are followed from the start.
    func start(preferencesPath: String?) {
        if let path = preferencesPath { Self.makeFolders(FileIO.directoryName(path)) }
        if !link.start() { Log.error("appearance sources: could not start their thread; \"system\" means light") }
    }

    /// The sources' first arbitrated answer (no preference when they take too long).
    func initialAppearance() -> SystemAppearance {
        link.waitForFirstAppearance(timeout: Self.firstAnswerTimeout) ?? .noPreference
    }

    // MARK: HostEventHandler

    func start(app: KioskApp, poster: HostEventPoster, now: Double) {
        link.attach(poster)
        ownSaves.attach(poster)
        apply(to: app, now: now)
    }

    func handle(code: Int32, app: KioskApp, now: Double) {
        if code == Self.savedEventCode { followSavedFile(app: app, now: now) }
        guard code == AppearanceLink.eventCode else { return }
        apply(to: app, now: now)
    }

    /// After the latest commit's save: the page follows the file when they differ (another
    /// program wrote while the save was pending). A save of an older commit is skipped: the
    /// newer one's save follows and is checked then.
    private func followSavedFile(app: KioskApp, now: Double) {
        let latest = latestCommit()
        guard let reader, ownSaves.generation == latest, followedDuringCommit == latest else { return }
        followedDuringCommit = nil
        let loaded = reader.load()
        if let d = loaded.diagnostic { logs.note(key: "preferences file unusable", line: d) }
        guard loaded.appearance != app.appearancePreference else { return }
        let dark = app.isDarkMode
        logs.note(key: "preferences file rewritten during a save", line: "preferences file \(reader.path) holds \"\(loaded.appearance.rawValue)\" after the kiosk's save "
            + "(another program wrote it while the save was pending); following it")
        app.setAppearancePreference(loaded.appearance, at: now)
        if timing && app.isDarkMode != dark {
            pendingNotes.append("preferences file arrived at monotonic \(fixed(AppearanceLink.monotonicSeconds(), 6))")
        }
    }

    func stop() {
        link.stop()
        for l in [logs] + alsoFlushed { l.flushAll() }
    }

    /// Every loop pass (each frame while the page moves): nothing is allocated when no
    /// summary is pending.
    func passEnded() -> Double? {
        logs.flush()
        var due = logs.secondsUntilDue
        for l in alsoFlushed {
            l.flush()
            if let d = l.secondsUntilDue { due = min(due ?? d, d) }
        }
        return due
    }

    var statusNote: String? { unsavedNote() }

    func framePresented() {
        guard !pendingNotes.isEmpty else { return }
        let presented = fixed(AppearanceLink.monotonicSeconds(), 6)
        for note in pendingNotes {
            Log.info("timing: \(note); first changed frame presented at monotonic \(presented)")
        }
        pendingNotes.removeAll()
    }

    /// Applies every queued event to `app` at host time `now`.
    private func apply(to app: KioskApp, now: Double) {
        for arrival in link.drain() {
            let dark = app.isDarkMode, contrast = app.highContrast, reduced = app.reduceMotion, text = app.textScale
            var kinds: [String] = []
            switch arrival.event {
            case .systemAppearance(let a):
                app.setSystemAppearance(a, at: now)
                if app.isDarkMode != dark { kinds.append("appearance \(a.source?.rawValue ?? "none")") }
                if app.highContrast != contrast {
                    logs.note(key: "high contrast changed",
                              line: "high contrast \(app.highContrast ? "on" : "off"): the desktop portal's contrast changed")
                    kinds.append("contrast")
                }
                if app.textScale != text {
                    logs.note(key: "text size changed", line: "text size ×\(fixed(app.textScale, 2)): the desktop's text-scaling-factor changed")
                }
                if app.reduceMotion != reduced {
                    logs.note(key: "reduce motion changed",
                              line: "reduce motion \(app.reduceMotion ? "on" : "off"): the desktop portal's reduced-motion changed")
                    kinds.append("reduced-motion")
                }
            case .preferencesFileChanged(let path):
                logs.note(key: "preferences file changed by another program",
                          line: "preferences file \(path) was changed by another program; following it")
                guard let reader else { continue }
                followedDuringCommit = latestCommit()
                let loaded = reader.load()
                if let d = loaded.diagnostic { logs.note(key: "preferences file unusable", line: d) }
                app.setAppearancePreference(loaded.appearance, at: now)
                if app.isDarkMode != dark { kinds.append("preferences file") }
            case .log(let line):
                // The runner limits its bus faults itself; its other lines (a folder gone and
                // back, a source skipped) are limited here, each distinct line a cause.
                logs.note(key: line, line: line)
            }
            if timing {
                for kind in kinds { pendingNotes.append("\(kind) arrived at monotonic \(fixed(arrival.at, 6))") }
            }
        }
    }

    /// `mkdir -p` with mode 0700; failures are left to the watcher's own log line.
    static func makeFolders(_ folder: String) {
        guard !folder.isEmpty, folder != "/", folder != "." else { return }
        var st = stat()
        if stat(folder, &st) == 0 { return }
        makeFolders(FileIO.directoryName(folder))
        _ = mkdir(folder, 0o700)
    }
}

/// The writer thread's "the save of commit N is in place", carried to the loop thread as a
/// host event (`LiveAppearance.savedEventCode`).
final class OwnSaveSignal: Sendable {
    private let state = Mutex<(generation: Int, poster: HostEventPoster?)>((0, nil))

    /// The highest commit number saved so far.
    var generation: Int { state.withLock { $0.generation } }

    func attach(_ poster: HostEventPoster) {
        let pending = state.withLock { s -> Bool in
            s.poster = poster
            return s.generation > 0
        }
        if pending { poster.post(code: LiveAppearance.savedEventCode) }
    }

    /// Wakes the loop so that its next pass sends the STATUS again (any thread).
    func wake() {
        state.withLock { $0.poster }?.post(code: LiveAppearance.saveStateEventCode)
    }

    /// The save of commit `generation` is in place (any thread).
    func finished(generation: Int) {
        let poster = state.withLock { s -> HostEventPoster? in
            s.generation = max(s.generation, generation)
            return s.poster
        }
        poster?.post(code: LiveAppearance.savedEventCode)
    }
}
