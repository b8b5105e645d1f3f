import Log
#if canImport(Glibc)
import Glibc
#endif
import AppearanceBus
import Fleet
import KioskEngine
import KioskHost
import KioskSupport
import KioskTools
import LogLimit
import Raster
import Text
import Threads

/// `darkmode-kiosk [run]`: config + flags, the saved mode, then the SDL host. The first frame
/// already shows the saved mode; every commit goes to a background writer (no file I/O on the
/// frame path), flushed with a bounded wait on every exit path.
func runKiosk(_ flags: RunOptions) throws(KioskError) -> Int32 {
    let inputs = try RunInputs.load(flags)
    if flags.checkOnly {
        inputs.printCheck()
        return 0
    }
    if flags.preflightOnly { return 0 }
    let settings = inputs.settings
    // Before SDL and D-Bus open anything: libdbus aborts when it runs out of descriptors.
    if let problem = ProcessLimits.ensureOpenFiles(minimum: ProcessLimits.openFilesForRun) { throw .runtime(problem) }
    if let problem = ProcessLimits.ensureStack(minimum: ProcessLimits.stackForRun) { throw .runtime(problem) }
    if settings.preferencesPath == nil {
        Log.warning("no preferences location (set XDG_CONFIG_HOME or HOME, or pass --prefs): the mode is kept in memory only")
    }
    let (store, preference) = PreferencesStore.open(path: settings.preferencesPath)
    var host = HostOptions(windowed: settings.windowed, size: settings.size, rotation: settings.rotate,
                           scale: settings.scale, calibration: settings.calibration,
                           connector: settings.connector, environment: settings.host)
    host.sleep = settings.sleep
    let lanes = flags.lanes ?? HelperLanes.defaultLanes()
    // Every thread the run starts gets a stack: the appearance runner, the preferences writer,
    // the screen reader's bridge, the fleet's client, the render helpers and the host's own.
    host.threads = SDLHost.threadsForRun(callerThreads: 1 + (store == nil ? 0 : 1) + 1 + (inputs.fleetSetup == nil ? 0 : 1), lanes: lanes)
    // Under an address-space limit too low for the run and its threads' stacks: one line
    // before any thread starts (not a thread that fails to start, or SDL's start that fails).
    if let problem = SDLHost.addressSpaceProblemBeforeStart(host) { throw .runtime(problem) }
    // Causes that can repeat log a few lines a minute each, then a summary (issue 39, item 6).
    let logs = RunLogs(window: settings.host.logWindowSeconds)
    let live = LiveAppearance(settings: settings, store: store, timing: settings.host.timing, logs: logs.info)
    live.alsoFlushed = [logs.saves]
    live.start(preferencesPath: settings.preferencesPath)
    defer { live.stop() }
    StartupTrace.mark("sources")
    let saver = store.map { makeSaver($0, settings: settings, live: live, logs: logs.saves) }
    // Screen readers (AT-SPI2): on its own thread; active only while an accessibility bus exists
    // and is enabled. Its actions commit through the same saver as taps.
    let access = LiveAccessibility(options: LiveAccessibility.options(environment: inputs.environment, language: inputs.language.tag),
                                   title: host.titleBase, onCommit: { saver?.commit($0) })
    access.start()
    defer { access.stop() }
    // The MQTT client on its own thread: started before the window, never waited for.
    let fleet = inputs.fleetSetup.map { LiveFleet(setup: $0, version: KioskVersion.string, logs: logs.info, onCommit: { saver?.commit($0) }) }
    fleet?.start()
    defer { fleet?.stop() }
    // The state for machines (`StateFile`), when a place for it is set.
    let stateFile = settings.host.stateFile.map { StateFile(path: $0) }
    let handlers: [HostEventHandler] = [live, access] + (fleet.map { [$0] } ?? []) + (stateFile.map { [$0] } ?? [])
    let status = SDLHost.run(host, makeApp: { page in
        inputs.makeApp(page: page, preference: preference, system: live.initialAppearance, lanes: lanes)
    }, onCommit: { saver?.commit($0) }, eventHandler: HostEventHandlers(handlers), beforeExit: { _ = saver?.close(timeout: 2) })
    // The exit flush (above, before the window closes; again here for the paths without it):
    // a choice still not on disk after its last try is named in one line.
    if let problem = saver?.close(timeout: 2) { Log.error(problem) }
    return status
}

/// The two rate-limited logs of `run`: causes that repeat (sources, the fleet) at info, failed
/// saves at error; a few lines a minute per cause, then a summary.
private struct RunLogs {
    let info: SharedLogLimiter
    let saves: SharedLogLimiter

    init(window: Double) {
        info = SharedLogLimiter(interval: window, burst: LiveAppearance.linesPerCause,
                                now: { MonotonicClock.seconds() }, log: { Log.info($0) })
        saves = SharedLogLimiter(interval: window, burst: LiveAppearance.linesPerCause,
                                 now: { MonotonicClock.seconds() }, log: { Log.error($0) })
    }
}

/// The preference saver: a failed save is tried again on a backoff and when the folder changes
/// (issue 39, item 3); what it has saved and not saved reaches the appearance sources (their
/// own writes are not news) and STATUS.
private func makeSaver(_ store: PreferencesStore, settings: RunSettings, live: LiveAppearance, logs: SharedLogLimiter) -> PreferencesSaver {
    let saver = PreferencesSaver(store: store, fsyncDelay: settings.host.fsyncDelaySeconds,
                                 log: { logs.note(key: "preferences save", line: $0) },
                                 onSaved: { [signal = live.ownSaves] in signal.finished(generation: $0) },
                                 onStateChange: { [signal = live.ownSaves] in signal.wake() })
    live.latestCommit = { saver.latestGeneration }
    live.unsavedNote = { saver.unsavedNote }
    live.link.runner.onFolderActivity { saver.retrySoon() }
    return saver
}

/// What `run` reads before anything starts: the config, the flags and the environment merged
/// (`RunSettings`), and the files they name (colour sets, page backgrounds, the fleet's).
private struct RunInputs {
    let flags: RunOptions
    let environment: [String: String]
    let settings: RunSettings
    let colors: ColorSets
    let language: Language
    let background: PageBackground?
    let fleetSetup: FleetSetup?

    /// Everything read and checked; a bad file or flag throws naming it. The environment is
    /// read here, once: every setting of the run comes from `settings`.
    static func load(_ flags: RunOptions) throws(KioskError) -> RunInputs {
        let environment = processEnvironment()
        let config = try KioskConfig.load(path: flags.configPath)
        let settings = RunSettings.merge(config: config, flags: flags, environment: environment)
        if settings.host.timing {
            StartupTrace.enable()
            StartupTrace.mark("main")
        }
        // A variable the kiosk cannot use: `run --check` fails on it; `run` says so and goes on
        // with its default (a typo in a unit's Environment= must not leave a wall dark).
        if flags.checkOnly, !settings.host.warnings.isEmpty {
            throw .usage(settings.host.warnings.map { "environment: \($0)" }.joined(separator: "\n"))
        }
        // `--preflight` says nothing `run` will say itself a moment later.
        let speaks = !flags.preflightOnly
        if speaks { for warning in settings.host.warnings { Log.warning(warning) } }
        if speaks, let kernels = settings.host.kernels, !Kernels.choose(kernels) {
            Log.warning("DARKMODE_KIOSK_KERNELS=\(kernels.rawValue): this CPU cannot run that copy; using \(Kernels.level.rawValue)")
        }
        let colors = try ColorSetsFile.load(path: settings.colorsPath)
        let language: Language
        do { language = try Language.resolve(explicit: settings.language, environment: environment) } catch {
            throw .usage("--lang: \(error)")
        }
        let background = try PageBackgroundFile.load(settings.background, configFile: flags.configPath)
        if let path = settings.preferencesPath {
            try PreferencesLocation.checkNotAFolder(path, origin: flags.prefsPath != nil ? .flag
                : config.preferences != nil ? .config(file: flags.configPath ?? "?") : .defaultLocation)
        }
        return RunInputs(flags: flags, environment: environment, settings: settings, colors: colors, language: language,
                         background: background, fleetSetup: try fleet(config, flags: flags, settings: settings))
    }

    /// The fleet (issue 43): its files are read and checked here; `run --check` fails on them,
    /// `run` says why in one line and goes on without the fleet (the page matters more).
    private static func fleet(_ config: KioskConfig, flags: RunOptions, settings: RunSettings) throws(KioskError) -> FleetSetup? {
        guard let mqtt = config.fleet.mqtt else { return nil }
        do { return try FleetSetup.make(mqtt, credentialsDirectory: settings.host.credentialsDirectory) } catch {
            if flags.checkOnly {
                throw KioskError.input(error.message.split(separator: "\n")
                    .map { "config file \(flags.configPath ?? "?"): \($0)" }.joined(separator: "\n"))
            }
            if !flags.preflightOnly { Log.error("the fleet (MQTT) is off: \(error.message)") }
            return nil
        }
    }

    /// `run --check`: what the run would do, one line per subject.
    func printCheck() {
        StandardOutput.line(settings.summary)
        StandardOutput.line(fleetSetup.map { $0.summary.joined(separator: "\n") } ?? "fleet (MQTT): off (no fleet.mqtt in the config)")
        StandardOutput.line(RunSettings.highContrastLine(colors))
        StandardOutput.line("text size: follows the desktop's text-scaling-factor (org.gnome.desktop.interface, through the portal); "
                            + "larger labels get room, or the page is scaled down to fit")
        if let background { StandardOutput.line("page background images: " + PageBackgroundFile.summary(background)) }
        StandardOutput.line(DeviceAccess.checkLine(DeviceAccess.probe(), root: geteuid() == 0, user: DeviceAccess.userName()))
        tzset()
        if let line = AppearanceSummary.scheduleNow(settings.appearance, atUTC: Int64(time(nil)), zone: AppearanceRunner.systemZone) {
            StandardOutput.line(line)
        }
    }

    /// The app for the page's geometry, made on the host's first-page thread while the main
    /// thread opens the window: fonts and strings load here. It starts in the saved
    /// `preference` and the `system` appearance the sources know now.
    func makeApp(page: PageGeometry, preference: AppearancePreference, system: () -> SystemAppearance, lanes: Int) -> KioskApp {
        let text = PageText.make(language: language)
        StartupTrace.mark("text")
        let options = settings.kioskOptions(pixelWidth: page.pixelWidth, pixelHeight: page.pixelHeight, scale: page.scale,
                                            colors: colors, strings: text.strings, typesetter: text.typesetter,
                                            background: background)
        // The options carry what a flag or the config forces on; the app follows the desktop's
        // contrast and reduced-motion hints (in `system`, and live afterwards) for the rest.
        let app = KioskApp(options: options, preference: preference, system: system())
        // Busy frames (the page cross-fade, both toggles moving) are drawn by more than one
        // core; the helpers sleep while nothing moves.
        let helpers = HelperLanes(helpers: lanes - 1)
        if helpers.lanes > 1 { app.workers = FrameWorkers(lanes: helpers.lanes, run: helpers.run) }
        return app
    }
}
