import KioskEngine
import KioskSupport
/// `darkmode-kiosk replay TRACE.jsonl`: reads the trace, loads the preferences file (if
/// `--prefs` is given; otherwise the mode starts light and lives in memory, so a replay never
/// touches the user's real preferences), replays, and writes each commit to the file the way
/// the kiosk does.
public enum ReplayCommand {
    public static func run(_ o: ReplayOptions, output: (String) -> Void) throws(KioskError) {
        if let path = o.prefsPath { try PreferencesLocation.checkNotAFolder(path, origin: .flag) }
        let events = try TraceReader.read(path: o.tracePath)
        let (store, initial) = PreferencesStore.open(path: o.prefsPath)
        var runner = ReplayRunner(size: o.size ?? PixelSize(width: 1280, height: 800), scale: o.scale ?? 1,
                                  reduceMotion: o.reduceMotion)
        runner.frameLines = o.frames
        _ = runner.run(events, initial: initial, onOutput: { store?.saveReporting($0) }, emit: output)
    }
}
