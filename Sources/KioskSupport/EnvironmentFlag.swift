/// What an on/off environment variable (`DARKMODE_KIOSK_TIMING`, …) means, in one place: unset,
/// empty, `0`, `false`, `no` and `off` (any case) are off; anything else (`1`, `true`, `yes`,
/// `on`) is on. Every reader of such a variable asks this, so one value never means two things.
public enum EnvironmentFlag {
    public static func isOn(_ value: String?) -> Bool {
        guard let v = value?.lowercased() else { return false }
        return !["", "0", "false", "no", "off"].contains(v)
    }

    /// The variable `name` of `environment`.
    public static func isOn(_ name: String, in environment: [String: String]) -> Bool { isOn(environment[name]) }
}
