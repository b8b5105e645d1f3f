/// The manual page, darkmode-kiosk(1), in roff: written by `darkmode-kiosk --man` when the
/// Debian package is built, from the same flag tables (`FlagSpec`), synopses and summaries as
/// `--help`, so the two cannot drift. The paths in FILES are the package's.
public enum ManPage {
    public static var roff: String {
        var out: [String] = [
            #".TH DARKMODE\-KIOSK 1 "" "\#(escape(KioskVersion.line))" "User Commands""#,
            ".SH NAME",
            #"darkmode\-kiosk \- a full\-screen light/dark toggle kiosk page"#,
            ".SH SYNOPSIS",
            ".nf",
        ]
        out += HelpText.usageBlock.split(separator: "\n").map { escape(String($0)) }
        out += [".fi", ".SH DESCRIPTION"]
        out += paragraph(description)
        out.append(".SH COMMANDS")
        for sub in KioskSubcommand.allCases {
            out.append(".SS " + escape(sub == .run ? "run (the default)" : sub.rawValue))
            out += paragraph(HelpText.summaries[sub]!)
            if sub == .replay {
                out += [".TP", ".I TRACE.jsonl", "the input trace (one JSON event per line)"]
            }
            for spec in FlagSpec.specs(for: sub) {
                out.append(".TP")
                if let value = spec.valueName {
                    // Bold "--name ", then the value in italics.
                    out.append(#".BI ""# + escape(spec.name) + #" " ""# + escape(value) + #"""#)
                } else {
                    out.append(".B " + escape(spec.name))
                }
                out.append(escape(spec.help))
            }
        }
        out += [".SS Other options", ".TP", ".BR \\-\\-help \", \" \\-h", escape("this summary, or a command's flags after the command"),
                ".TP", ".BR \\-\\-version \", \" \\-V", escape("the version and the instruction-set extensions the binary was built for")]
        out.append(".SH FILES")
        for (path, what) in files { out += [".TP", ".I " + escape(path), escape(what)] }
        out.append(".SH ENVIRONMENT")
        for (name, what) in environment { out += [".TP", ".B " + escape(name), escape(what)] }
        out.append(".SH SIGNALS")
        for (name, what) in signals { out += [".TP", ".B " + escape(name), escape(what)] }
        out.append(".SH LIMITS")
        out.append(escape(limits))
        out += [".SH EXIT STATUS", "0 success, 1 runtime failure, 2 bad usage or input (one line on standard error names what and where).",
                ".SH SEE ALSO", ".BR systemctl (1),", ".BR journalctl (1),", ".BR cage (1);",
                escape("/usr/share/doc/darkmode-kiosk/ (running as a kiosk, preferences, operation).")]
        return out.joined(separator: "\n") + "\n"
    }

    /// What each signal does to `run` (docs/kiosk-operation.md, "Signals and limits").
    static let signals: [(String, String)] = [
        ("SIGTERM, SIGINT", "stop: the pending preferences save is flushed (at most 2 s), exit 0."),
        ("SIGHUP, SIGQUIT", "the same stop as SIGTERM (a hang-up does not reload the configuration: restart the unit for that); one line names the signal."),
        ("SIGUSR1, SIGUSR2, SIGALRM", "ignored (on KMS/DRM the kernel's VT switch uses SIGUSR1 and SIGUSR2 while the kiosk runs)."),
        ("SIGPIPE, SIGXFSZ", "ignored: the write fails and is reported (a save over LimitFSIZE= says \"File too large\" and is kept in memory)."),
    ]

    static let limits = """
        run checks its limits before it opens anything they could break, each with one line and exit status 1: \
        open files (at least 64; a lower soft limit is raised towards the hard one), stack (at least 1 MiB for the \
        main thread; likewise raised; every thread gets its own 1 MiB stack whatever LimitSTACK= says), and, when \
        an address-space limit (LimitAS=, ulimit -v) is set, the address space the output's size needs \
        (about 100 MiB at 1920x1080; the line names the figure).
        """

    static let description = """
        A full-screen kiosk page for Linux touch screens: two animated light/dark toggles and a \
        "Use System Setting" button, drawn by its own software rasterizer and driven by touch, mouse \
        and keyboard through SDL2. The chosen appearance themes the page and is kept in a preferences \
        file. As a kiosk it runs under systemd (darkmode-kiosk.service: inside the cage compositor on \
        tty1; darkmode-kiosk-kmsdrm.service: straight on KMS/DRM), tells systemd when its first frame \
        is on screen and pings its watchdog.
        """

    static let files: [(String, String)] = [
        ("/etc/darkmode-kiosk/kiosk.json", "the settings file the units pass with --config (screen, colours, language, appearance sources); check it with darkmode-kiosk --config FILE --check"),
        ("/var/lib/darkmode-kiosk/.config/darkmode-kiosk/preferences.json", "the chosen appearance (the units' --prefs, in their state directory)"),
        ("/usr/share/darkmode-kiosk/colors.json", "an example of the colour-sets file the config's colors key can name (the shipped config uses the built-in sets)"),
    ]

    static let environment: [(String, String)] = [
        ("XDG_CONFIG_HOME", "where the preferences file lives without --prefs or a config preferences path"),
        ("SDL_VIDEODRIVER", "the display back end: wayland (under cage), kmsdrm (no compositor) or x11"),
        ("LC_ALL, LC_MESSAGES, LANG", "the label language when neither --lang nor the config names one"),
    ]

    /// Text as roff prints it: backslashes and hyphens escaped, a leading control character
    /// defused, anything beyond ASCII as a named Unicode character.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case _ where scalar.value > 0x7E:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    /// A paragraph, escaped, as one input line.
    static func paragraph(_ text: String) -> [String] { [escape(text)] }
}
