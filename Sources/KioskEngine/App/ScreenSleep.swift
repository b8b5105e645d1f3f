import Appearance
import DarkModeToggle

/// Config `display.sleep`: the screen goes dark after `afterIdleSeconds` without input, and/or
/// during a nightly `schedule` window of local wall-clock time. Off when both are nil.
public struct SleepSettings: Equatable, Sendable {
    /// Seconds without input before the screen sleeps; nil: no idle sleep.
    public var afterIdleSeconds: Double?
    /// The window of local time in which the screen sleeps; nil: none.
    public var schedule: SleepWindow?

    public init(afterIdleSeconds: Double? = nil, schedule: SleepWindow? = nil) {
        self.afterIdleSeconds = afterIdleSeconds
        self.schedule = schedule
    }

    public static let off = SleepSettings()
    public var isOn: Bool { afterIdleSeconds != nil || schedule != nil }

    /// Inside the schedule, a screen woken by a touch sleeps again after this long without
    /// input when `afterIdleSeconds` is not set.
    public static let scheduleWakeSeconds: Double = 60

    /// How long the screen stays on without input inside the schedule window.
    var scheduleGrace: Double { afterIdleSeconds ?? Self.scheduleWakeSeconds }

    /// "after 300 s idle, schedule 22:00-06:30", or "off".
    public var summary: String {
        guard isOn else { return "off" }
        var parts: [String] = []
        if let a = afterIdleSeconds { parts.append("after \(Self.seconds(a)) s without input") }
        if let s = schedule { parts.append("every night \(s) (local time)") }
        return parts.joined(separator: ", ")
    }

    public static func seconds(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? "\(Int64(v))" : "\(v)"
    }
}

/// A window of local wall-clock time, "22:00-06:30": asleep from the first time up to the
/// second (crossing midnight when the second is earlier). DST is handled by the appearance
/// schedule's rule (`ScheduleRule.fixed`), whose "dark" span this window is.
public struct SleepWindow: Equatable, Sendable, CustomStringConvertible {
    public var from: WallClock
    public var until: WallClock

    public init?(from: WallClock, until: WallClock) {
        guard from != until else { return nil }
        self.from = from
        self.until = until
    }

    /// What the config holds: "HH:MM-HH:MM" (two different times).
    public static let expectation = "a window of local time \"HH:MM-HH:MM\" (e.g. \"22:00-06:30\", two different times)"

    /// Parses exactly "HH:MM-HH:MM"; nil for anything else or an empty window.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = WallClock(parsing: String(parts[0])), let b = WallClock(parsing: String(parts[1])) else {
            return nil
        }
        self.init(from: a, until: b)
    }

    public var description: String { "\(from)-\(until)" }

    var rule: ScheduleRule { .fixed(darkFrom: from, lightFrom: until) }
}

/// The screen's sleep, decided purely from the last input (host seconds), the wall clock (UTC
/// seconds) and the local zone: whether it is asleep, why, and when the next change is due (so
/// the loop sleeps until then and never polls). While asleep a press (touch, click) or a key
/// wakes it and is swallowed — the pressing pointers' whole gestures, through their up, never
/// reach the page — and pointer moves without a press are ignored.
///
/// Rules: asleep after `afterIdleSeconds` without input; inside the schedule window, asleep
/// once `afterIdleSeconds` (or `SleepSettings.scheduleWakeSeconds`) passed without input, so
/// a touch at night shows the page for that long. At the window's end a screen asleep only
/// for the schedule wakes; one also idle long enough stays asleep until touched.
public struct ScreenSleepPolicy: Sendable {
    public enum Reason: Equatable, Sendable {
        case idle
        case schedule
        /// Asked from outside (the fleet's `display/set sleep`): asleep until input or `command(sleep: false)`.
        case command
    }

    /// What changed in `update` or an input.
    public enum Change: Equatable, Sendable {
        case fellAsleep(Reason)
        /// Woken by input (`touch`: a pointer press; otherwise a key).
        case wokeByInput(touch: Bool)
        /// The schedule window ended.
        case wokeBySchedule
        /// Asked from outside (the fleet's `display/set on`).
        case wokeByCommand
    }

    /// What the state is at an instant.
    public struct Decision: Equatable, Sendable {
        /// Nil: awake.
        public var asleep: Reason?
        /// Seconds from now until the decision may change without input; nil: never.
        public var nextChange: Double?
    }

    public let settings: SleepSettings
    public let zone: LocalZone
    public private(set) var asleep: Reason?
    /// Host seconds of the last input that counted (the start counts as input).
    public private(set) var lastInput: Double
    /// Pointers pressed since the wake whose gestures are still being swallowed.
    private var swallowed: Set<Int> = []
    /// The wake gesture is being swallowed (until all its pointers are up).
    public private(set) var swallowing = false

    public init(settings: SleepSettings, zone: LocalZone, now: Double) {
        self.settings = settings
        self.zone = zone
        lastInput = now
    }

    public var isAsleep: Bool { asleep != nil }

    /// The state at `now` (host seconds) and `utc` (wall clock, UTC seconds), input aside.
    public func decide(now: Double, utc: Int64) -> Decision {
        let idle = now - lastInput
        var next: Double?
        func sooner(_ t: Double) { next = next.map { min($0, t) } ?? t }
        let idleAsleep = settings.afterIdleSeconds.map { idle >= $0 } ?? false
        if let a = settings.afterIdleSeconds, !idleAsleep { sooner(a - idle) }
        var windowAsleep = false
        if let window = settings.schedule {
            let state = window.rule.state(atUTC: utc, zone: zone)
            let inWindow = state.scheme == .dark
            let grace = settings.scheduleGrace
            let edge = state.nextTransition.map { Double($0 - utc) }
            if inWindow {
                windowAsleep = idle >= grace
                if !windowAsleep { sooner(grace - idle) }
                // Asleep for the schedule alone: its end wakes the screen.
                if windowAsleep, !idleAsleep, let edge { sooner(edge) }
            } else if !idleAsleep, let edge {
                sooner(edge)
            }
        }
        let reason: Reason? = idleAsleep ? .idle : windowAsleep ? .schedule : nil
        return Decision(asleep: reason, nextChange: next.map { max(0, $0) })
    }

    /// Takes the decision at `now`/`utc`: the change, if any. Asleep, only the schedule's end
    /// wakes the screen here (input wakes it in `admit`).
    public mutating func update(now: Double, utc: Int64) -> Change? {
        // Asleep by command: only input or the next command wakes it.
        if asleep == .command { return nil }
        let d = decide(now: now, utc: utc)
        switch (asleep, d.asleep) {
        case (nil, let r?):
            asleep = r
            swallowing = false
            swallowed = []
            return .fellAsleep(r)
        case (_?, nil):
            asleep = nil
            return .wokeBySchedule
        case (_?, let r?):
            asleep = r
            return nil
        case (nil, nil):
            return nil
        }
    }

    /// Seconds until `update` should be called again (nil: only after input).
    public func nextCheck(now: Double, utc: Int64) -> Double? { decide(now: now, utc: utc).nextChange }

    /// A pointer event at `now`: whether the page may have it, and the change it made (a wake).
    public mutating func admit(_ e: PointerEvent, now: Double) -> (deliver: Bool, change: Change?) {
        if asleep != nil {
            // Asleep: only a press wakes the screen; moves without one are not input.
            guard e.phase == .down else { return (false, nil) }
            asleep = nil
            lastInput = now
            swallowing = true
            swallowed = [e.id]
            return (false, .wokeByInput(touch: true))
        }
        lastInput = now
        guard swallowing else { return (true, nil) }
        switch e.phase {
        case .down: swallowed.insert(e.id)
        case .up, .cancel: swallowed.remove(e.id)
        case .move: break
        }
        if swallowed.isEmpty { swallowing = false }
        return (false, nil)
    }

    /// A command from outside at `now`: `sleep` true puts the screen to sleep now (until input or
    /// a wake command; settings off or on alike), false wakes it as input would (the idle time
    /// starts again). The change it made, nil when it already was so.
    public mutating func command(sleep: Bool, now: Double) -> Change? {
        if sleep {
            guard asleep == nil else {
                asleep = .command
                return nil
            }
            asleep = .command
            swallowing = false
            swallowed = []
            return .fellAsleep(.command)
        }
        lastInput = now
        guard asleep != nil else { return nil }
        asleep = nil
        return .wokeByCommand
    }

    /// A key press at `now`: whether the page may have it (not when it woke the screen).
    public mutating func admitKey(now: Double) -> (deliver: Bool, change: Change?) {
        lastInput = now
        guard asleep != nil else { return (true, nil) }
        asleep = nil
        return (false, .wokeByInput(touch: false))
    }
}
