import Appearance
import AppearanceBus
import Glibc
import KioskEngine
import KioskSDL
import KioskSupport
import KioskTools

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
/// The saver's store announces each own save's bytes (`willWrite` → `expectOwnWrite`, on the
/// writer thread), so the kiosk's own writes are not taken for another program's.
///
/// The portal's `contrast` and `reduced-motion` reach the app inside the `SystemAppearance`
/// (its `hints`); the app applies them unless the options force them on, and a change of
/// either is logged.
///
/// With `DARKMODE_KIOSK_TIMING=1`, an event that changed the mode, the high contrast or Reduce
/// Motion is reported with the CLOCK_MONOTONIC times it arrived and the next frame was
/// presented (`timing: appearance portal|contrast|reduced-motion|preferences file arrived …`).
final class LiveAppearance: HostEventHandler {
    let link: AppearanceLink
    private let reader: PreferencesStore?
    private let timing: Bool
    private var pendingNotes: [String] = []
    /// Seconds `run` waits at most (while SDL opens the window) for the sources' first answer,
    /// so the first frame already shows the system's mode.
    static let firstAnswerTimeout = 0.5

    init(settings: RunSettings, store: PreferencesStore?, timing: Bool) {
        link = AppearanceLink(options: AppearanceRunnerOptions(config: settings.appearance,
                                                               preferencesPath: settings.preferencesPath))
        reader = settings.preferencesPath.map(PreferencesStore.init(path:))
        self.timing = timing
        let runner = link.runner
        store?.willWrite = { bytes in runner.expectOwnWrite(bytes) }
    }

    /// Starts the sources. The preferences file's folder is created first (as the first save
    /// would), so other programs' changes are followed from the start.
    func start(preferencesPath: String?) {
        if let path = preferencesPath { Self.makeFolders(FileIO.directoryName(path)) }
        if !link.start() { StandardError.log("appearance sources: could not start their thread; \"system\" means light") }
    }

    /// The sources' first arbitrated answer (no preference when they take too long).
    func initialAppearance() -> SystemAppearance {
        link.waitForFirstAppearance(timeout: Self.firstAnswerTimeout) ?? .noPreference
    }

    // MARK: HostEventHandler

    func start(app: KioskApp, poster: HostEventPoster, now: Double) {
        link.attach(poster)
        apply(to: app, now: now)
    }

    func handle(code: Int32, app: KioskApp, now: Double) {
        guard code == AppearanceLink.eventCode else { return }
        apply(to: app, now: now)
    }

    func stop() { link.stop() }

    func framePresented() {
        guard !pendingNotes.isEmpty else { return }
        let presented = fixed(AppearanceLink.monotonicSeconds(), 6)
        for note in pendingNotes {
            StandardError.log("timing: \(note); first changed frame presented at monotonic \(presented)")
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
                    StandardError.log("high contrast \(app.highContrast ? "on" : "off"): the desktop portal's contrast changed")
                    kinds.append("contrast")
                }
                if app.textScale != text {
                    StandardError.log("text size ×\(fixed(app.textScale, 2)): the desktop's text-scaling-factor changed")
                }
                if app.reduceMotion != reduced {
                    StandardError.log("reduce motion \(app.reduceMotion ? "on" : "off"): the desktop portal's reduced-motion changed")
                    kinds.append("reduced-motion")
                }
            case .preferencesFileChanged(let path):
                StandardError.log("preferences file \(path) was changed by another program; following it")
                guard let reader else { continue }
                let loaded = reader.load()
                if let d = loaded.diagnostic { StandardError.log(d) }
                app.setAppearancePreference(loaded.appearance, at: now)
                if app.isDarkMode != dark { kinds.append("preferences file") }
            case .log(let line):
                StandardError.log(line)
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
