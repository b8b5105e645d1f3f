import KioskEngine

/// What `darkmode-kiosk calibrate` says when it is done: the matrix and the check point's
/// error, where it was written, and with `--print` the config line and the udev rule that gives
/// the same matrix to libinput (and so to cage, Weston or any other libinput user).
public struct CalibrationReport: Sendable, Equatable {
    public var result: CalibrationResult
    /// The device the samples came from, as the kernel names it.
    public var deviceName: String
    /// The config file written; nil when none was.
    public var configPath: String?
    /// `--rotate` as given (the matrix maps to the output before the page's turn).
    public var rotation: Rotation

    public init(result: CalibrationResult, deviceName: String, configPath: String?, rotation: Rotation) {
        self.result = result
        self.deviceName = deviceName
        self.configPath = configPath
        self.rotation = rotation
    }

    private var matrix: CalibrationMatrix { CalibrationConfigFile.rounded(result.matrix) }

    /// The summary line (always printed).
    public var summary: String {
        "calibration of \"\(deviceName)\": \(matrix.text); check point off by \(CalibrationRound.pixels(result.checkErrorPixels)) px"
            + (result.restarts > 0 ? " (after \(result.restarts) refused round\(result.restarts == 1 ? "" : "s"))" : "")
            + (rotation == .none ? "" : "; targets shown with --rotate \(rotation.degrees)")
    }

    /// The line saying where it went.
    public var written: String? {
        configPath.map { "written to \($0) (input.calibration); the kiosk applies it at its next start" }
    }

    /// `--print`: the config key, the udev rule and where the rule goes.
    public var printed: [String] {
        let spaced = matrix.values.map { CalibrationMatrix.format($0) }.joined(separator: " ")
        return [
            "\"input\": { \"calibration\": \(matrix.text) }",
            "ACTION==\"add|change\", KERNEL==\"event*\", ATTRS{name}==\"\(Self.udevEscaped(deviceName))\", ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(spaced)\"",
            "(the udev rule, e.g. in /etc/udev/rules.d/99-touch-calibration.rules, gives the matrix to every libinput user; "
                + "with the config key set the kiosk uses the config's instead)",
        ]
    }

    /// A device name inside a udev rule's double quotes (a quote or backslash escaped).
    static func udevEscaped(_ s: String) -> String {
        var out = ""
        for c in s {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
