import KioskEngine

/// What `darkmode-kiosk calibrate` says when it is done: the matrix and the check point's
/// error, where it was written, and with `--print` the config line and, on KMS/DRM, the udev
/// rule that gives the same matrix to libinput (and so to cage, Weston or any other libinput
/// user). A matrix measured under a compositor maps the touch as the compositor delivers it
/// (after its own libinput matrix), so it is no udev rule: `--print` says so instead.
public struct CalibrationReport: Sendable, Equatable {
    public var result: CalibrationResult
    /// The device the samples came from, as the kernel names it.
    public var deviceName: String
    /// The config file written; nil when none was.
    public var configPath: String?
    /// `--rotate` as given (the matrix maps to the output before the page's turn).
    public var rotation: Rotation
    /// Measured under a compositor (SDL's touch, after the compositor's own matrix).
    public var underCompositor: Bool

    public init(result: CalibrationResult, deviceName: String, configPath: String?, rotation: Rotation,
                underCompositor: Bool = false) {
        self.result = result
        self.deviceName = deviceName
        self.configPath = configPath
        self.rotation = rotation
        self.underCompositor = underCompositor
    }

    private var matrix: CalibrationMatrix { CalibrationConfigFile.rounded(result.matrix) }

    /// The summary line (always printed).
    public var summary: String {
        (underCompositor ? "calibration of the compositor's touch (SDL's \"\(deviceName)\")" : "calibration of \"\(deviceName)\"")
            + ": \(matrix.text); check point off by \(CalibrationRound.pixels(result.checkErrorPixels)) px"
            + (result.restarts > 0 ? " (after \(result.restarts) refused round\(result.restarts == 1 ? "" : "s"))" : "")
            + (rotation == .none ? "" : "; targets shown with --rotate \(rotation.degrees)")
    }

    /// The line saying where it went.
    public var written: String? {
        configPath.map {
            "written to \($0) (input.calibration); the kiosk applies it at its next start"
                + (underCompositor ? ", to touch, on top of the compositor's own calibration" : "")
        }
    }

    /// `--print`: the config key, the udev rule and where the rule goes (under a compositor:
    /// why there is no rule).
    public var printed: [String] {
        let key = "\"input\": { \"calibration\": \(matrix.text) }"
        if underCompositor {
            return [
                key,
                "(measured through the compositor: it maps the touch as the compositor delivers it, after the compositor's own "
                    + "calibration (a LIBINPUT_CALIBRATION_MATRIX udev rule, if any), so it is no udev rule: keep the compositor's "
                    + "calibration as it was while calibrating; for a udev rule, calibrate from a text console with the compositor stopped)",
            ]
        }
        let spaced = matrix.values.map { CalibrationMatrix.format($0) }.joined(separator: " ")
        return [
            key,
            "ACTION==\"add|change\", KERNEL==\"event*\", ATTRS{name}==\"\(Self.udevEscaped(deviceName))\", ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(spaced)\"",
            "(the udev rule, e.g. in /etc/udev/rules.d/99-touch-calibration.rules, gives the matrix to every libinput user; "
                + "with the config key set the kiosk on KMS/DRM uses the config's instead, but under cage applies the config's "
                + "on top of the rule's: there, use one of them, not both)",
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
