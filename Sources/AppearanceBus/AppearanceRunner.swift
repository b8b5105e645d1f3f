import Appearance
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
/// thread that sleeps in `poll()` on the sd-bus fds, an inotify fd, a timerfd (CLOCK_REALTIME,
/// cancelled on clock jumps) and an eventfd for stop; timeouts come from sd-bus and from the
/// light sensor's hold deadline. Nothing polls: idle, the thread is blocked in `poll()`.
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
    private let wakeFD: Int32

    struct Shared: Sendable {
        var current = SystemAppearance.noPreference
        var readings: [AppearanceSourceKind: SourceReading] = [:]
        var lux: Double?
        /// The kiosk's most recent own save, its announcement's number, and whether the
        /// watcher has seen it on disk yet.
        var ownWrite: OwnWrite?
        var ownGeneration = 0
        var ownSeen = false
        var stopping = false
        var started = false
        var threadID: Int32 = 0
        var thread: pthread_t?
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
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
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
        guard wakeFD >= 0 else { return false }
        let ok = shared.withLock { s -> Bool in
            if s.started { return false }
            s.started = true
            return true
        }
        guard ok else { return false }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let r = ThreadStacks.create(&thread, { ctx in
            let runner = Unmanaged<AppearanceRunner>.fromOpaque(ctx!).takeRetainedValue()
            runner.threadMain()
            return nil
        }, context)
        if r != 0 {
            Unmanaged<AppearanceRunner>.fromOpaque(context).release()
            shared.withLock { $0.started = false }
            return false
        }
        shared.withLock { $0.thread = thread }
        return true
    }

    /// Stops the thread and waits for it (ReleaseLight is sent first).
    public func stop() {
        let thread = shared.withLock { s -> pthread_t? in
            s.stopping = true
            let t = s.thread
            s.thread = nil
            return t
        }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
        if let thread { pthread_join(thread, nil) }
    }

    // MARK: - The thread

    /// Looks at the preferences file after an event: reports another program's change, not
    /// the echo of the kiosk's own most recent save. Once a different file has been seen after
    /// that save's echo, the save is forgotten (it can no longer be an echo).
    private func checkPreferencesFile(_ w: PreferencesWatcher) {
        let (own, generation, seen) = shared.withLock { ($0.ownWrite, $0.ownGeneration, $0.ownSeen) }
        let now = w.snapshot()
        let decision = w.decide(now, own: own)
        shared.withLock { s in
            guard s.ownGeneration == generation else { return }
            if decision == .own { s.ownSeen = true } else if seen { s.ownWrite = nil }
        }
        if decision == .changed { emit(.preferencesFileChanged(path: w.path)) }
    }

    private func emit(_ e: AppearanceEvent) { onEvent(e) }

    static func monotonicUSec() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    static func monotonicSeconds() -> Double { Double(monotonicUSec()) / 1e6 }

    private func threadMain() {
        shared.withLock { $0.threadID = csystemd_gettid() }
        let config = options.config
        let sources = Set(config.systemSources)
        let timeout = UInt64(max(0.01, options.callTimeoutSeconds) * 1e6)
        let log: (String) -> Void = { [onEvent] in onEvent(.log($0)) }
        // What the buses' peers send is logged through this, rate-limited (issue 32, item 8).
        let faults = FaultLog(interval: options.logInterval, now: Self.monotonicSeconds, log: log)

        // Session bus + portal; system bus + light sensor. Neither waits for its peer: the
        // first reads go out asynchronously and are answered through the poll loop below.
        var sessionBus: Bus?
        let portal = PortalClient(timeoutUSec: timeout, faults: faults)
        // The GNOME accessibility keys, for what the portal's appearance keys do not say.
        let gnome = GnomeSettingsClient(timeoutUSec: timeout, faults: faults)
        if sources.contains(.portal) {
            switch Bus.open(options.sessionBus) {
            case .success(let b): sessionBus = b; portal.attach(b); gnome.attach(b)
            case .failure(let e): log("portal: \(e.message); skipping it")
            }
        }
        var systemBus: Bus?
        let sensor = SensorClient(settings: config.lightSensor, timeoutUSec: timeout, now: Self.monotonicSeconds, faults: faults)
        if sources.contains(.lightSensor) {
            switch Bus.open(options.systemBus) {
            case .success(let b): systemBus = b; sensor.attach(b)
            case .failure(let e): log("light sensor: \(e.message); skipping it")
            }
        }
        // Schedule timer.
        var timerFD: Int32 = -1
        var scheduleReading: SourceReading = .absent
        let rule = sources.contains(.schedule) ? config.schedule : nil
        if sources.contains(.schedule) && rule == nil {
            log("schedule: no appearance.schedule configured; skipping it")
        }
        func evaluateSchedule() {
            guard let rule else { return }
            tzset()
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            let state = rule.state(atUTC: Int64(ts.tv_sec), zone: options.zone)
            scheduleReading = .scheme(state.scheme)
            var spec = itimerspec()
            spec.it_value.tv_sec = time_t(state.wakeAt)
            if timerfd_settime(timerFD, CSYSTEMD_TFD_TIMER_ABSTIME | CSYSTEMD_TFD_TIMER_CANCEL_ON_SET, &spec, nil) != 0 {
                log("schedule: cannot arm the timer: \(String(cString: strerror(errno)))")
            }
        }
        if rule != nil {
            timerFD = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
            if timerFD < 0 { log("schedule: timerfd_create failed; skipping it") } else { evaluateSchedule() }
        }
        // Preferences watcher.
        var watcher: PreferencesWatcher?
        if let path = options.preferencesPath {
            let w = PreferencesWatcher(path: path)
            if let problem = w.open() { log(problem) }
            if w.fd >= 0 { watcher = w }
        }

        let arbiter = SourceArbiter(order: config.systemSources)
        var last: SystemAppearance?
        func publish() {
            // The first event waits for each bus source's first answer (or its failure, at
            // most the call timeout), so the host's first frame shows the arbitrated mode.
            if last == nil, (sessionBus != nil && !(portal.settled && gnome.settled)) || (systemBus != nil && !sensor.settled) { return }
            var readings: [AppearanceSourceKind: SourceReading] = [:]
            for kind in AppearanceSourceKind.allCases {
                guard sources.contains(kind) else { continue }
                switch kind {
                case .portal: readings[kind] = portal.reading
                case .lightSensor: readings[kind] = sensor.reading
                case .schedule: readings[kind] = scheduleReading
                }
            }
            let now = arbiter.arbitrate(readings, hints: gnome.fill(portal.hints))
            let lux = sensor.lux
            shared.withLock { s in
                s.current = now
                s.readings = readings
                s.lux = lux
            }
            if now != last {
                last = now
                emit(.systemAppearance(now))
            }
        }

        func turnBus(_ bus: inout Bus?, lost: () -> Void) {
            guard let b = bus else { return }
            // Dispatches signals and replies; the clients send their next calls from those
            // handlers without waiting for them.
            if let e = b.processAll() {
                log("\(e.message); the connection is closed and its source skipped")
                b.close()
                bus = nil
                lost()
            }
        }

        publish()
        var fds: [pollfd] = []
        while true {
            let nowUS = Self.monotonicUSec()
            var deadlineUS: UInt64? = nil
            func consider(_ t: UInt64?) { if let t { deadlineUS = min(deadlineUS ?? t, t) } }
            consider(sessionBus?.deadlineUSec)
            consider(systemBus?.deadlineUSec)
            consider(sensor.deadline.map { UInt64(($0 * 1e6).rounded(.up)) })
            consider(faults.deadline.map { UInt64(($0 * 1e6).rounded(.up)) })
            let timeoutMS: Int32 = deadlineUS.map { d in
                d <= nowUS ? 0 : Int32(min(UInt64(Int32.max), (d - nowUS + 999) / 1000))
            } ?? -1

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            let sIdx = sessionBus.map { b -> Int in fds.append(pollfd(fd: b.fd, events: b.events, revents: 0)); return fds.count - 1 }
            let yIdx = systemBus.map { b -> Int in fds.append(pollfd(fd: b.fd, events: b.events, revents: 0)); return fds.count - 1 }
            let wIdx = watcher.map { w -> Int in fds.append(pollfd(fd: w.fd, events: Int16(POLLIN), revents: 0)); return fds.count - 1 }
            let tIdx = timerFD >= 0 ? { fds.append(pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0)); return fds.count - 1 }() : nil
            _ = sIdx; _ = yIdx

            let r = poll(&fds, nfds_t(fds.count), timeoutMS)
            if r < 0 && errno != EINTR {
                log("appearance runner: poll failed: \(String(cString: strerror(errno))); stopping")
                break
            }
            if fds[0].revents != 0 {
                var v: UInt64 = 0
                _ = read(wakeFD, &v, 8)
            }
            if shared.withLock({ $0.stopping }) { break }

            turnBus(&sessionBus, lost: { portal.lost(); gnome.lost() })
            turnBus(&systemBus, lost: { sensor.lost() })
            _ = sensor.advance(to: Self.monotonicSeconds())
            faults.flush(at: Self.monotonicSeconds())

            if let tIdx, fds[tIdx].revents != 0 {
                var expirations: UInt64 = 0
                let n = read(timerFD, &expirations, 8)
                if n == 8 || (n < 0 && errno == ECANCELED) { evaluateSchedule() }
            }
            if let wIdx, let w = watcher, fds[wIdx].revents != 0 {
                let found = w.drain()
                if found.activity, let f = shared.withLock({ $0.folderActivity }) { f() }
                var look = found.file
                if found.folder {
                    if let line = w.rewatch() { log(line) }
                    // A new folder may already hold a file written before it was watched.
                    look = look || w.watching
                }
                if look { checkPreferencesFile(w) }
            }
            publish()
        }

        if let b = systemBus { sensor.releaseOnStop(b); b.close() }
        if let b = sessionBus { b.close() }
        watcher?.close()
        if timerFD >= 0 { close(timerFD) }
    }
}
