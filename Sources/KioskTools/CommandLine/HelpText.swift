import KioskEngine
import KioskSupport
/// The `--help` texts, built from the same flag tables the parser uses.
public enum HelpText {
    static let synopses: [KioskSubcommand: String] = [
        .run: "darkmode-kiosk [run] [--windowed] [--size WxH] [--rotate 0|90|180|270] [--scale S]\n               [--config FILE] [--prefs FILE] [--reduce-motion] [--show-fps] [--check]",
        .render: "darkmode-kiosk render --out FILE.png [--width PX] [--page WxH] [--progress P]\n               [--position Q] [--time T] [--static] [--light|--dark] [--scale S]\n               [--page-color R,G,B]",
        .replay: "darkmode-kiosk replay TRACE.jsonl [--size WxH] [--scale S] [--prefs FILE] [--reduce-motion]",
        .bench: "darkmode-kiosk bench [--size WxH] [--scale S] [--frames N] [--scenario NAME|all] [--json FILE]\n               [--full-redraw] [--raster]",
    ]

    static let summaries: [KioskSubcommand: String] = [
        .run: "Run the kiosk page full-screen (the default command).",
        .render: "Render one frame of the toggle (or a full page) to a PNG file.",
        .replay: "Run a JSON-lines input trace through the engine on a virtual clock; JSON lines on stdout.",
        .bench: "Time frames of the real renderer and page headlessly.",
    ]

    /// The general help: every subcommand's usage.
    public static var general: String {
        var out = "\(KioskVersion.line): a full-screen light/dark toggle kiosk page\n\nUsage:\n"
        for sub in KioskSubcommand.allCases { out += "  \(synopses[sub]!)\n" }
        out += "  darkmode-kiosk --help | --version\n\n"
        out += "Flags take a value as '--flag value' or '--flag=value'.\n"
        out += "'darkmode-kiosk COMMAND --help' describes each flag.\n"
        out += "Exit status: 0 success, 1 runtime failure, 2 bad usage or input.\n"
        return out
    }

    /// One subcommand's help: usage, summary and a line per flag.
    public static func text(for sub: KioskSubcommand) -> String {
        var out = "Usage: \(synopses[sub]!)\n\n\(summaries[sub]!)\n\n"
        if sub == .replay { out += "  TRACE.jsonl           the input trace (one JSON event per line)\n" }
        for spec in FlagSpec.specs(for: sub) {
            let left = spec.valueName.map { "\(spec.name) \($0)" } ?? spec.name
            out += "  " + left + String(repeating: " ", count: max(0, 20 - left.count)) + "  \(spec.help)\n"
        }
        return out
    }

    /// The text for a parsed `.help` command.
    public static func text(for topic: KioskSubcommand?) -> String {
        topic.map { text(for: $0) } ?? general
    }
}
