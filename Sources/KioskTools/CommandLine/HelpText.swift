import KioskEngine
import KioskSupport
/// The `--help` texts, built from the same flag tables the parser uses.
public enum HelpText {
    /// What comes before the flags in each synopsis.
    static let heads: [KioskSubcommand: String] = [
        .run: "darkmode-kiosk [run]",
        .render: "darkmode-kiosk render",
        .replay: "darkmode-kiosk replay TRACE.jsonl",
        .bench: "darkmode-kiosk bench",
        .soak: "darkmode-kiosk soak",
        .calibrate: "darkmode-kiosk calibrate",
    ]

    /// Synopsis lines wrap before this many characters; continuation lines are indented.
    static let synopsisWidth = 96
    static let continuation = String(repeating: " ", count: 15)

    /// One subcommand's synopsis, generated from its flag table (so it cannot drift).
    static func synopsis(_ sub: KioskSubcommand) -> String {
        var lines: [String] = [heads[sub]!]
        for token in FlagSpec.specs(for: sub).compactMap(\.synopsisToken) {
            if lines[lines.count - 1].count + 1 + token.count > synopsisWidth {
                lines.append(continuation + token)
            } else {
                lines[lines.count - 1] += " " + token
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Every synopsis, as `--help` and the README print them.
    public static var usageBlock: String {
        KioskSubcommand.allCases.map { synopsis($0) + "\n" }.joined() + "darkmode-kiosk --help | --version\n"
    }

    static let summaries: [KioskSubcommand: String] = [
        .run: "Run the kiosk page full-screen (the default command).",
        .render: "Render one frame of the toggle (or a full page) to a PNG file.",
        .replay: "Run a JSON-lines input trace through the engine on a virtual clock; JSON lines on stdout.",
        .bench: "Time frames of the real renderer and page headlessly.",
        .soak: "Random interaction through the real app on a virtual clock; fails (exit 1) if memory grows or frame times drift.",
        .calibrate: "Calibrate a touch screen on the spot (full screen on KMS/DRM or under cage): touch the crosshairs; "
            + "the matrix goes to the config's input.calibration, then it exits.",
    ]

    /// The general help: every subcommand's usage.
    public static var general: String {
        var out = "\(KioskVersion.line): a full-screen light/dark toggle kiosk page\n\nUsage:\n"
        for line in usageBlock.split(separator: "\n") { out += "  \(line)\n" }
        out += "\n"
        out += "Flags take a value as '--flag value' or '--flag=value'.\n"
        out += "'darkmode-kiosk COMMAND --help' describes each flag.\n"
        out += "Exit status: 0 success, 1 runtime failure, 2 bad usage or input.\n"
        return out
    }

    /// One subcommand's help: usage, summary and a line per flag.
    public static func text(for sub: KioskSubcommand) -> String {
        var out = "Usage: \(synopsis(sub))\n\n\(summaries[sub]!)\n\n"
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
