import Appearance
import Glibc
import AppearanceBus
import KioskEngine
import KioskSDL
import KioskSupport
import KioskTools

/// "System" made live in `run`: the appearance sources (desktop portal, light sensor,
/// schedule) and the preferences file watched for other programs' rewrites, through an
/// `AppearanceLink` whose events the SDL loop hands to `handle`.
///
/// - `.systemAppearance`: `KioskApp.setSystemAppearance` (animates like a tap while the
///   preference is system; nothing is stored).
/// - `.preferencesFileChanged`: the file is re-read exactly as at start (`PreferencesStore.load`:
///   a broken file is kept aside and logged, the default preference used) and applied with
///   `setAppearancePreference` (animates, nothing saved back).
/// - `.log`: one line on stderr.
///
/// The store announces each own save's bytes (`willWrite` → `expectOwnWrite`), so the kiosk's
/// own writes are not taken for another program's.
final class LiveAppearance {
    let link: AppearanceLink
    let store: PreferencesStore?
    /// Seconds `run` waits at most (while SDL opens the window) for the sources' first answer,
    /// so the first frame already shows the system's mode.
    static let firstAnswerTimeout = 0.5

    init(settings: RunSettings, store: PreferencesStore?) {
        link = AppearanceLink(options: AppearanceRunnerOptions(config: settings.appearance,
                                                               preferencesPath: settings.preferencesPath))
        self.store = store
        let runner = link.runner
        store?.willWrite = { bytes in runner.expectOwnWrite(bytes) }
    }

    /// Starts the sources. The preferences file's folder is created first (as the first save
    /// would), so other programs' changes are followed from the start.
    func start(preferencesPath: String?) {
        if let path = preferencesPath { Self.makeFolders(FileIO.directoryName(path)) }
        if !link.start() { StandardError.log("appearance sources: could not start their thread; \"system\" means light") }
    }

    func stop() { link.stop() }

    /// `mkdir -p` with mode 0700; failures are left to the watcher's own log line.
    static func makeFolders(_ folder: String) {
        guard !folder.isEmpty, folder != "/", folder != "." else { return }
        var st = stat()
        if stat(folder, &st) == 0 { return }
        makeFolders(FileIO.directoryName(folder))
        _ = mkdir(folder, 0o700)
    }

    /// The sources' first arbitrated answer (no preference when they take too long).
    func initialAppearance() -> SystemAppearance {
        link.waitForFirstAppearance(timeout: Self.firstAnswerTimeout) ?? .noPreference
    }

    /// Applies every queued event to `app` at host time `now`; returns a timing note when the
    /// mode changed (the host prints it with the first changed frame's time).
    func handle(_ app: KioskApp, now: Double) -> String? {
        var notes: [String] = []
        for arrival in link.drain() {
            let before = app.isDarkMode
            let stamp = fixed(arrival.at, 6)
            switch arrival.event {
            case .systemAppearance(let a):
                app.setSystemAppearance(a, at: now)
                if app.isDarkMode != before { notes.append("appearance \(a.source?.rawValue ?? "none") arrived at monotonic \(stamp)") }
            case .preferencesFileChanged(let path):
                StandardError.log("preferences file \(path) was changed by another program; following it")
                guard let store else { continue }
                let loaded = store.load()
                if let d = loaded.diagnostic { StandardError.log(d) }
                app.setAppearancePreference(loaded.appearance, at: now)
                if app.isDarkMode != before { notes.append("preferences file arrived at monotonic \(stamp)") }
            case .log(let line):
                StandardError.log(line)
            }
        }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }
}
