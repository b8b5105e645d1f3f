/// What an on/off environment variable (`DARKMODE_KIOSK_TIMING`, `DARKMODE_KIOSK_LOGIND`)
/// means, in one place, so one value never means two things: `1`, `true`, `yes`, `on` are on;
/// `0`, `false`, `no`, `off` are off (any case); unset or empty is the variable's default;
/// anything else is neither (`HostEnvironment` warns and uses the default).
public enum EnvironmentFlag {
    /// Nil for a value that is neither on nor off (empty: `unset`).
    public static func parse(_ value: String?, unset: Bool) -> Bool? {
        guard let v = value.map({ String($0.lowercased().filter { !$0.isWhitespace }) }), !v.isEmpty else { return unset }
        if ["1", "true", "yes", "on"].contains(v) { return true }
        if ["0", "false", "no", "off"].contains(v) { return false }
        return nil
    }
}
