import Appearance
import SDBus
import CSystemd
import Glibc
import Synchronization
import Threads

/// What the runner tells the host, on the runner's thread. The host turns each into an SDL user
/// event (or similar) and handles it on its own loop.
public enum AppearanceEvent: Equatable, Sendable {
    /// The arbitrated system appearance changed (also sent once after start, whatever it is).
    case systemAppearance(SystemAppearance)
    /// The preferences file was replaced or rewritten by another program: re-read it as at start.
    case preferencesFileChanged(path: String)
    /// One line about a source appearing, going away or failing (for stderr / the journal).
    case log(String)
}

public struct AppearanceRunnerOptions: Sendable {
    public var config: AppearanceConfig
    public var sessionBus: BusAddress
    public var systemBus: BusAddress
    /// The preferences file to watch (its folder must exist); nil: no watching.
    public var preferencesPath: String?
    /// The local time zone for the schedule; default glibc's (`TZ`, /etc/localtime).
    public var zone: LocalZone
    /// How long one D-Bus method call may take before the source counts as failed.
    public var callTimeoutSeconds: Double
    /// The window of the rate-limited fault lines (`LogLimiter`): a minute; tests shorten it.
    public var logInterval: Double = 60

    public init(config: AppearanceConfig, sessionBus: BusAddress = .session, systemBus: BusAddress = .system,
                preferencesPath: String? = nil, zone: LocalZone = AppearanceRunner.systemZone,
                callTimeoutSeconds: Double = 2) {
        self.config = config
        self.sessionBus = sessionBus
        self.systemBus = systemBus
        self.preferencesPath = preferencesPath
        self.zone = zone
        self.callTimeoutSeconds = callTimeoutSeconds
    }
}

/// Owns the bus connections, the schedule timer and the preferences watcher on ONE helper
/// thread (a `ServiceThread`; its loop is `RunnerLoop`) that sleeps in `poll()` on the sd-bus
/// fds, an inotify fd, a timerfd (CLOCK_REALTIME, cancelled on clock jumps) and the thread's
/// wake descriptor for stop; timeouts come from sd-bus and from the light sensor's hold
/// deadline. Nothing polls: idle, the thread is blocked in `poll()`.
///
/// Host integration: create with options and a callback, `start()` once, call
/// `expectOwnWrite(_:)` with the bytes and file identity right before each own save of the
/// preferences file is renamed into place,
/// read `current` (or the event's payload) when a `.systemAppearance` event arrives, and
/// `stop()` at exit (releases the light sensor, closes the buses, joins the thread).
public final class AppearanceRunner: Sendable {
    public let options: AppearanceRunnerOptions
    private let onEvent: @Sendable (AppearanceEvent) -> Void
    private let shared = Mutex(Shared())
    let service = ServiceThread()

    struct Shared: Sendable {
        var current = SystemAppearance.noPreference
        var readings: [AppearanceSourceKind: SourceReading] = [:]
        var lux: Double?
        /// The kiosk's most recent own save, its announcement's number, and whether the
        /// watcher has seen it on disk yet.
        var ownWrite: OwnWrite?
        var ownGeneration = 0
        var ownSeen = false
        var threadID: Int32 = 0
        var folderActivity: (@Sendable () -> Void)?
    }

    /// glibc's local zone: `localtime_r`'s `tm_gmtoff`.
    public static let systemZone = LocalZone { t in
        var tt = time_t(t)
        var parts = tm()
        localtime_r(&tt, &parts)
        return Int(parts.tm_gmtoff)
    }

    public init(options: AppearanceRunnerOptions, onEvent: @escaping @Sendable (AppearanceEvent) -> Void) {
        self.options = options
        self.onEvent = onEvent
    }

    /// The latest arbitrated appearance.
    public var current: SystemAppearance { shared.withLock { $0.current } }
    /// Each source's latest reading (absent ones included), for diagnostics.
    public var readings: [AppearanceSourceKind: SourceReading] { shared.withLock { $0.readings } }
    /// The light sensor's last level, when it reports one.
    public var lux: Double? { shared.withLock { $0.lux } }
    /// The runner thread's kernel id (for /proc/self/task/<tid>/stat), 0 before it runs.
    public var threadID: Int32 { shared.withLock { $0.threadID } }

    /// The kiosk is about to rename this file (these bytes, this device and inode) over the
    /// preferences file: when the watcher finds exactly that file there it does not report a
    /// change. Only the most recent own save is recognised, and only until another file has
    /// been seen after it: a later file with the same bytes (a tool restoring the kiosk's
    /// earlier version, even by renaming that very file back) is followed.
    public func expectOwnWrite(_ write: OwnWrite) {
        shared.withLock {
            $0.ownWrite = write
            $0.ownGeneration += 1
            $0.ownSeen = false
        }
    }

    /// Called on the runner thread when anything happens in the preferences folder or to it
    /// (its mode, an entry removed, the folder made again): a save that failed may succeed now.
    public func onFolderActivity(_ f: @escaping @Sendable () -> Void) {
        shared.withLock { $0.folderActivity = f }
    }

    /// Starts the helper thread; false when it could not be created (or is already running).
    @discardableResult
    public func start() -> Bool {
        service.start(name: "appearance") { [self] in
            shared.withLock { $0.threadID = csystemd_gettid() }
            RunnerLoop(runner: self).run()
        }
    }

    /// Stops the thread and waits for it (ReleaseLight is sent first).
    public func stop() { service.stop() }

    // MARK: - For the thread (`RunnerLoop`)

    /// Looks at the preferences file after an event: reports another program's change, not
    /// the echo of the kiosk's own most recent save. Once a different file has been seen after
    /// that save's echo, the save is forgotten (it can no longer be an echo).
    func checkPreferencesFile(_ w: PreferencesWatcher) {
        let (own, generation, seen) = shared.withLock { ($0.ownWrite, $0.ownGeneration, $0.ownSeen) }
        let now = w.snapshot()
        let decision = w.decide(now, own: own)
        shared.withLock { s in
            guard s.ownGeneration == generation else { return }
            if decision == .own { s.ownSeen = true } else if seen { s.ownWrite = nil }
        }
        if decision == .changed { emit(.preferencesFileChanged(path: w.path)) }
    }

    /// The folder watcher saw activity: tells whoever asked (`onFolderActivity`).
    func folderActivityNoticed() {
        if let f = shared.withLock({ $0.folderActivity }) { f() }
    }

    /// Publishes the arbitrated appearance and the readings behind it (for the getters).
    func publish(_ now: SystemAppearance, readings: [AppearanceSourceKind: SourceReading], lux: Double?) {
        shared.withLock { s in
            s.current = now
            s.readings = readings
            s.lux = lux
        }
    }

    func emit(_ e: AppearanceEvent) { onEvent(e) }
}
