import Appearance
import CSystemd
import Glibc
import SDBus
import Threads

/// The appearance runner's thread: the sources it opened (session bus with the portal and the
/// GNOME keys, system bus with the light sensor, the schedule's timerfd, the preferences
/// watcher), the poll loop over them, and the arbitration after each wake-up. Made and run on
/// the runner's `ServiceThread`; it ends when the runner stops (`run` returns after closing
/// everything and releasing the light sensor).
final class RunnerLoop {
    private unowned let runner: AppearanceRunner
    private let sources: Set<AppearanceSourceKind>
    private let log: (String) -> Void
    /// What the buses' peers send is logged through this, rate-limited (issue 32, item 8).
    private let faults: FaultLog
    private let portal: PortalClient
    /// The GNOME accessibility keys, for what the portal's appearance keys do not say.
    private let gnome: GnomeSettingsClient
    private let sensor: SensorClient
    private var sessionBus: BusConnection?
    private var systemBus: BusConnection?
    private let schedule: ScheduleTimer
    private var watcher: PreferencesWatcher?
    private let arbiter: SourceArbiter
    private var last: SystemAppearance?

    init(runner: AppearanceRunner) {
        self.runner = runner
        let options = runner.options
        let config = options.config
        sources = Set(config.systemSources)
        let timeout = UInt64(max(0.01, options.callTimeoutSeconds) * 1e6)
        let log: (String) -> Void = { [runner] in runner.emit(.log($0)) }
        self.log = log
        faults = FaultLog(interval: options.logInterval, now: MonotonicClock.seconds, log: log)
        portal = PortalClient(timeoutUSec: timeout, faults: faults)
        gnome = GnomeSettingsClient(timeoutUSec: timeout, faults: faults)
        sensor = SensorClient(settings: config.lightSensor, timeoutUSec: timeout, now: MonotonicClock.seconds, faults: faults)
        schedule = ScheduleTimer(rule: sources.contains(.schedule) ? config.schedule : nil, zone: options.zone, log: log)
        arbiter = SourceArbiter(order: config.systemSources)
        openSources()
    }

    /// Session bus + portal; system bus + light sensor; the schedule's timer; the preferences watcher. Neither bus
    /// waits for its peer: the first reads go out asynchronously and are answered through
    /// the poll loop.
    private func openSources() {
        let options = runner.options
        if sources.contains(.portal) {
            switch BusConnection.open(options.sessionBus) {
            case .success(let b): sessionBus = b; portal.attach(b); gnome.attach(b)
            case .failure(let e): log("portal: \(e.message); skipping it")
            }
        }
        if sources.contains(.lightSensor) {
            switch BusConnection.open(options.systemBus) {
            case .success(let b): systemBus = b; sensor.attach(b)
            case .failure(let e): log("light sensor: \(e.message); skipping it")
            }
        }
        if sources.contains(.schedule) && options.config.schedule == nil {
            log("schedule: no appearance.schedule configured; skipping it")
        }
        schedule.start()
        if let path = options.preferencesPath {
            let w = PreferencesWatcher(path: path)
            if let problem = w.open() { log(problem) }
            if w.fd >= 0 { watcher = w }
        }
    }

    /// The poll loop, until the runner stops (or poll fails).
    func run() {
        publish()
        var fds: [pollfd] = []
        while true {
            let watched = pollSet(&fds)
            let r = poll(&fds, nfds_t(fds.count), timeoutMS())
            if r < 0 && errno != EINTR {
                log("appearance runner: poll failed: \(String(cString: strerror(errno))); stopping")
                break
            }
            if fds[0].revents != 0 { runner.service.drainWake() }
            if runner.service.stopping { break }
            turn(&sessionBus, lost: { [portal, gnome] in portal.lost(); gnome.lost() })
            turn(&systemBus, lost: { [sensor] in sensor.lost() })
            _ = sensor.advance(to: MonotonicClock.seconds())
            faults.flush(at: MonotonicClock.seconds())
            if let t = watched.timer, fds[t].revents != 0 { schedule.fired() }
            if let w = watched.watcher, fds[w].revents != 0 { preferencesFolderChanged() }
            publish()
        }
        closeAll()
    }

    /// The earliest deadline (sd-bus's calls, the sensor's hold, the fault log's summary) as
    /// a poll timeout in ms; -1: none.
    private func timeoutMS() -> Int32 {
        let nowUS = MonotonicClock.microseconds()
        var deadlineUS: UInt64? = nil
        func consider(_ t: UInt64?) { if let t { deadlineUS = min(deadlineUS ?? t, t) } }
        consider(sessionBus?.deadlineUSec)
        consider(systemBus?.deadlineUSec)
        consider(sensor.deadline.map { UInt64(($0 * 1e6).rounded(.up)) })
        consider(faults.deadline.map { UInt64(($0 * 1e6).rounded(.up)) })
        return deadlineUS.map { d in
            d <= nowUS ? 0 : Int32(min(UInt64(Int32.max), (d - nowUS + 999) / 1000))
        } ?? -1
    }

    /// Fills `fds`: the wake descriptor first, then the buses, the watcher and the timer;
    /// returns where the watcher's and the timer's entries are.
    private func pollSet(_ fds: inout [pollfd]) -> (watcher: Int?, timer: Int?) {
        fds.removeAll(keepingCapacity: true)
        fds.append(pollfd(fd: runner.service.wakeDescriptor, events: Int16(POLLIN), revents: 0))
        for b in [sessionBus, systemBus].compactMap({ $0 }) { fds.append(pollfd(fd: b.fd, events: b.events, revents: 0)) }
        var watched: (watcher: Int?, timer: Int?) = (nil, nil)
        if let w = watcher {
            fds.append(pollfd(fd: w.fd, events: Int16(POLLIN), revents: 0))
            watched.watcher = fds.count - 1
        }
        if schedule.fd >= 0 {
            fds.append(pollfd(fd: schedule.fd, events: Int16(POLLIN), revents: 0))
            watched.timer = fds.count - 1
        }
        return watched
    }

    /// Dispatches a bus's signals and replies (the clients send their next calls from those
    /// handlers without waiting for them); a connection that is gone is closed and its
    /// sources told (`lost`).
    private func turn(_ bus: inout BusConnection?, lost: () -> Void) {
        guard let b = bus, let e = b.processAll() else { return }
        log("\(e.message); the connection is closed and its source skipped")
        b.close()
        bus = nil
        lost()
    }

    /// The watcher's inotify fd is readable: the folder's activity is told, the file looked at.
    private func preferencesFolderChanged() {
        guard let w = watcher else { return }
        let found = w.drain()
        if found.activity { runner.folderActivityNoticed() }
        var look = found.file
        if found.folder {
            if let line = w.rewatch() { log(line) }
            // A new folder may already hold a file written before it was watched.
            look = look || w.watching
        }
        if look { runner.checkPreferencesFile(w) }
    }

    /// Arbitrates the readings; sends an event when the result changed. The first event
    /// waits for each bus source's first answer (or its failure, at most the call timeout),
    /// so the host's first frame shows the arbitrated mode.
    private func publish() {
        if last == nil, (sessionBus != nil && !(portal.settled && gnome.settled)) || (systemBus != nil && !sensor.settled) { return }
        var readings: [AppearanceSourceKind: SourceReading] = [:]
        for kind in AppearanceSourceKind.allCases where sources.contains(kind) {
            switch kind {
            case .portal: readings[kind] = portal.reading
            case .lightSensor: readings[kind] = sensor.reading
            case .schedule: readings[kind] = schedule.reading
            }
        }
        let now = arbiter.arbitrate(readings, hints: gnome.fill(portal.hints))
        runner.publish(now, readings: readings, lux: sensor.lux)
        if now != last {
            last = now
            runner.emit(.systemAppearance(now))
        }
    }

    private func closeAll() {
        if let b = systemBus { sensor.releaseOnStop(b); b.close() }
        if let b = sessionBus { b.close() }
        watcher?.close()
        schedule.close()
    }
}

/// The schedule source: its reading now and a timerfd (CLOCK_REALTIME, absolute, cancelled
/// when the wall clock is set) armed for its next change.
final class ScheduleTimer {
    private let rule: ScheduleRule?
    private let zone: LocalZone
    private let log: (String) -> Void
    private(set) var fd: Int32 = -1
    private(set) var reading: SourceReading = .absent

    /// Not armed until `start`.
    init(rule: ScheduleRule?, zone: LocalZone, log: @escaping (String) -> Void) {
        self.rule = rule
        self.zone = zone
        self.log = log
    }

    /// Makes and arms the timer (no rule: nothing; the reading stays absent).
    func start() {
        guard rule != nil, fd < 0 else { return }
        fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        if fd < 0 { log("schedule: timerfd_create failed; skipping it") } else { evaluate() }
    }

    /// The reading now, and the timer armed for its next change.
    private func evaluate() {
        guard let rule else { return }
        tzset()
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let state = rule.state(atUTC: Int64(ts.tv_sec), zone: zone)
        reading = .scheme(state.scheme)
        var spec = itimerspec()
        spec.it_value.tv_sec = time_t(state.wakeAt)
        if timerfd_settime(fd, CSYSTEMD_TFD_TIMER_ABSTIME | CSYSTEMD_TFD_TIMER_CANCEL_ON_SET, &spec, nil) != 0 {
            log("schedule: cannot arm the timer: \(String(cString: strerror(errno)))")
        }
    }

    /// The timerfd is readable: it expired, or the wall clock was set (ECANCELED).
    func fired() {
        var expirations: UInt64 = 0
        let n = read(fd, &expirations, 8)
        if n == 8 || (n < 0 && errno == ECANCELED) { evaluate() }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
