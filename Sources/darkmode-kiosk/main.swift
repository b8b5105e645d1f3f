import Log
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BuildCPU
import Fleet
import CBuildCPU
import CVersion
import KioskEngine
import KioskSupport
import KioskTools
import Raster
import LogLimit
import KioskHost
import AppearanceBus
import SystemdNotify
import Text
import Threads

/// The command-line front end: parse, dispatch, map errors to exit statuses (2 bad input,
/// 1 runtime failure). Never a stack trace for bad input.
func main() -> Int32 {
    // Before anything compiled for the build's CPU runs: one clear line, not SIGILL, on a CPU
    // without the extensions this binary was compiled for.
    BuildCPU.verify(mask: darkmode_kiosk_build_cpu_features())
    KioskVersion.string = String(cString: darkmode_kiosk_version())
    ProcessSetup.start()
    // Before any thread starts: threads that libraries create without a size get at least
    // the stack the kiosk's own get, whatever RLIMIT_STACK was at start.
    ThreadStacks.setProcessDefault()
    // Under an address-space limit, no 64 MiB malloc arena per thread (see `MallocArenas`).
    MallocArenas.useOneUnderAddressSpaceLimit()
    let command: KioskCommand
    do {
        command = try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        return error.report()
    }
    do {
        switch command {
        case .help(let sub):
            StandardOutput.line(HelpText.text(for: sub))
            return 0
        case .version:
            StandardOutput.line(KioskVersion.line)
            StandardOutput.line(BuildCPU.versionLine(mask: darkmode_kiosk_build_cpu_features()))
            StandardOutput.line("span kernels: " + (Kernels.avx2Available ? "avx2 (the x86-64-v3 copy, chosen for this CPU)"
                                                    : "baseline (this CPU has no AVX2)"))
            return 0
        case .manPage:
            StandardOutput.write(ManPage.roff)
            return 0
        case .run(let options):
            return try runKiosk(options)
        case .render(let options):
            try RenderCommand.run(options, environment: processEnvironment())
            return 0
        case .replay(let options):
            try ReplayCommand.run(options) { StandardOutput.line($0) }
            return 0
        case .bench(let options):
            if options.raster {
                try RasterBenchmark.command { StandardOutput.line($0) }
                return 0
            }
            try BenchCommand.run(options) { StandardOutput.line($0) }
            return 0
        case .soak(let options):
            try SoakCommand.run(minutes: options.minutes, seed: options.seed,
                                size: options.size ?? PixelSize(width: 1280, height: 800), scale: options.scale ?? 1) { StandardOutput.line($0) }
            return 0
        case .calibrate(let options):
            return try runCalibrate(options)
        }
    } catch let error as KioskError {
        return error.report()
    } catch {
        return KioskError.runtime("\(error)").report()
    }
}

/// `darkmode-kiosk [run]`: config + flags, the saved mode, then the SDL host. The first frame
/// already shows the saved mode; every commit goes to a background writer (no file I/O on the
/// frame path), flushed with a bounded wait on every exit path.
func runKiosk(_ flags: RunOptions) throws(KioskError) -> Int32 {
    // The environment is read here, once: every setting below comes from `settings`.
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
    for warning in settings.host.warnings { Log.warning(warning) }
    if let kernels = settings.host.kernels, !Kernels.choose(kernels) {
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
    // The fleet (issue 43): its files are read and checked here; `run --check` fails on them,
    // `run` says why in one line and goes on without the fleet (the page matters more).
    var fleetSetup: FleetSetup?
    if let mqtt = config.fleet.mqtt {
        do { fleetSetup = try FleetSetup.make(mqtt, credentialsDirectory: settings.host.credentialsDirectory) } catch {
            if flags.checkOnly { throw KioskError.input(error.message.split(separator: "\n").map { "config file \(flags.configPath ?? "?"): \($0)" }.joined(separator: "\n")) }
            Log.error("the fleet (MQTT) is off: \(error.message)")
        }
    }
    if flags.checkOnly {
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
        return 0
    }
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
    host.threads = SDLHost.threadsForRun(callerThreads: 1 + (store == nil ? 0 : 1) + 1 + (fleetSetup == nil ? 0 : 1), lanes: lanes)
    // Under an address-space limit too low for the run and its threads' stacks: one line
    // before any thread starts (not a thread that fails to start, or SDL's start that fails).
    if let problem = SDLHost.addressSpaceProblemBeforeStart(host) { throw .runtime(problem) }
    // Causes that can repeat log a few lines a minute each, then a summary (issue 39, item 6).
    let logWindow = settings.host.logWindowSeconds
    let logs = SharedLogLimiter(interval: logWindow, burst: LiveAppearance.linesPerCause,
                                now: { MonotonicClock.seconds() }, log: { Log.info($0) })
    let saveLogs = SharedLogLimiter(interval: logWindow, burst: LiveAppearance.linesPerCause,
                                    now: { MonotonicClock.seconds() }, log: { Log.error($0) })
    let live = LiveAppearance(settings: settings, store: store,
                              timing: settings.host.timing,
                              logs: logs)
    live.alsoFlushed = [saveLogs]
    live.start(preferencesPath: settings.preferencesPath)
    defer { live.stop() }
    StartupTrace.mark("sources")
    // A failed save is tried again on a backoff and when the folder changes (issue 39, item 3).
    let saver = store.map { PreferencesSaver(store: $0, fsyncDelay: settings.host.fsyncDelaySeconds,
                                             log: { saveLogs.note(key: "preferences save", line: $0) },
                                             onSaved: { [signal = live.ownSaves] in signal.finished(generation: $0) },
                                             onStateChange: { [signal = live.ownSaves] in signal.wake() }) }
    if let saver {
        live.latestCommit = { saver.latestGeneration }
        live.unsavedNote = { saver.unsavedNote }
        live.link.runner.onFolderActivity { saver.retrySoon() }
    }
    // Screen readers (AT-SPI2): on its own thread; active only while an accessibility bus exists
    // and is enabled. Its actions commit through the same saver as taps.
    let access = LiveAccessibility(options: LiveAccessibility.options(environment: environment, language: language.tag),
                                   title: host.titleBase, onCommit: { saver?.commit($0) })
    access.start()
    defer { access.stop() }
    // The MQTT client on its own thread: started before the window, never waited for.
    let fleet = fleetSetup.map { LiveFleet(setup: $0, version: KioskVersion.string, logs: logs, onCommit: { saver?.commit($0) }) }
    fleet?.start()
    defer { fleet?.stop() }
    let status = SDLHost.run(host, makeApp: { page in
        // Fonts and strings load here, on the host's first-page thread, while the main thread
        // opens the window.
        let text = PageText.make(language: language)
        StartupTrace.mark("text")
        let system = live.initialAppearance()
        let options = settings.kioskOptions(pixelWidth: page.pixelWidth, pixelHeight: page.pixelHeight, scale: page.scale,
                                            colors: colors, strings: text.strings, typesetter: text.typesetter,
                                            background: background)
        // The options carry what a flag or the config forces on; the app follows the desktop's
        // contrast and reduced-motion hints (in `system`, and live afterwards) for the rest.
        let app = KioskApp(options: options, preference: preference, system: system)
        // Busy frames (the page cross-fade, both toggles moving) are drawn by more than one
        // core; the helpers sleep while nothing moves.
        let helpers = HelperLanes(helpers: lanes - 1)
        if helpers.lanes > 1 { app.workers = FrameWorkers(lanes: helpers.lanes, run: helpers.run) }
        return app
    }, onCommit: { saver?.commit($0) }, eventHandler: HostEventHandlers([live, access] + (fleet.map { [$0] } ?? [])), beforeExit: { _ = saver?.close(timeout: 2) })
    // The exit flush (above, before the window closes; again here for the paths without it):
    // a choice still not on disk after its last try is named in one line.
    if let problem = saver?.close(timeout: 2) { Log.error(problem) }
    return status
}

/// The process environment as a dictionary (what `RunSettings` reads XDG paths from).
func processEnvironment() -> [String: String] {
    var env: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let s = String(cString: entry)
        if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
        p += 1
    }
    return env
}

exit(main())
