import Testing
@testable import KioskHost

/// The host's lines for causes that repeat (issue 41's flapping connector and sleep automation):
/// a few lines a minute per cause, then one summary, whatever the flap's rate.
@Suite struct RepeatingLinesTests {
    final class Clock { var t = 1000.0 }

    func make(_ clock: Clock, interval: Double = 60) -> (RepeatingLines, () -> [String], () -> [String]) {
        var infos: [String] = [], warnings: [String] = []
        let lines = RepeatingLines(interval: interval, now: { clock.t },
                                   info: { infos.append($0) }, warning: { warnings.append($0) })
        return (lines, { infos }, { warnings })
    }

    /// A connector flapping every half second for a minute (a burst's rescan line, then the
    /// display lost or found, by turns): 3 lines a cause, one summary each at the minute's end.
    @Test func flappingConnectorForAMinute() {
        let clock = Clock()
        let (lines, infos, warnings) = make(clock)
        var lost = false
        for i in 0..<120 {
            clock.t = 1000 + Double(i) * 0.5
            lines.info(.hotplug, "display: 1 hot-plug event, connectors read again")
            lost.toggle()
            if lost { lines.warning(.displayLost, "/dev/dri/card0: the display was disconnected; not drawing until one is connected") }
            else { lines.info(.displayFound, "display connected: Virtual-1 1280x800; the page follows") }
            if let due = lines.deadline, due <= clock.t { lines.flush(at: clock.t) }
        }
        #expect(infos().filter { $0.hasPrefix("display: 1 hot-plug") }.count == 3)
        #expect(infos().filter { $0.hasPrefix("display connected") }.count == 3)
        #expect(warnings().filter { $0.contains("was disconnected") }.count == 3)
        // Each cause's window ends a minute after its first line: the rescans' and the losses'
        // at 1060, the connections' (first at 1000.5) at 1060.5; none before.
        #expect(lines.deadline == 1060)
        clock.t = 1060
        lines.flush(at: clock.t)
        #expect(infos().contains("display: hot-plug rescans: 117 more in the last 60 s (first of them: display: 1 hot-plug event, connectors read again)"))
        #expect(!infos().contains { $0.hasPrefix("display: connections:") })
        #expect(lines.deadline == 1060.5)
        clock.t = 1060.5
        lines.flush(at: clock.t)
        #expect(infos().contains { $0.hasPrefix("display: connections: 57 more in the last 60 s") })
        #expect(warnings().contains { $0.hasPrefix("display: disconnections: 57 more in the last 60 s") })
        #expect(infos().count + warnings().count == 12)
        #expect(lines.deadline == nil)
    }

    /// A flap that goes on for ten minutes: a minute's lines stay bounded (no cause writes
    /// more than its 3 lines and a summary a window).
    @Test func tenMinutesOfFlapping() {
        let clock = Clock()
        let (lines, infos, _) = make(clock)
        for i in 0..<(600 * 4) {
            clock.t = 1000 + Double(i) * 0.25
            if let due = lines.deadline, due <= clock.t { lines.flush(at: clock.t) }
            lines.info(.hotplug, "display: 2 hot-plug events, connectors read again")
        }
        // 10 windows: 3 lines + 1 summary each at most.
        #expect(infos().count <= 40)
        #expect(infos().count >= 30)
    }

    /// Sleep and wake switched every 2 s by an automation: "screen asleep"/"screen awake" 3
    /// times each a minute, then a summary each.
    @Test func sleepAutomation() {
        let clock = Clock()
        let (lines, infos, _) = make(clock)
        for i in 0..<30 {
            clock.t = 1000 + Double(i) * 2
            lines.info(.asleep, "screen asleep (a display command; display switched off)")
            clock.t += 1
            lines.info(.awake, "screen awake (a display command; asleep 1 s, 0 frames presented meanwhile)")
        }
        #expect(infos().filter { $0.hasPrefix("screen asleep") }.count == 3)
        #expect(infos().filter { $0.hasPrefix("screen awake") }.count == 3)
        lines.flushAll(at: 1060)
        #expect(infos().contains { $0.hasPrefix("screen: fell asleep: 27 more in the last 60 s (first of them: screen asleep") })
        #expect(infos().contains { $0.hasPrefix("screen: woke: 27 more in the last 59 s (first of them: screen awake") })
    }

    /// The display lost once (the scenario the VM tests count): one line, no summary later.
    @Test func onceIsOneLine() {
        let clock = Clock()
        let (lines, infos, warnings) = make(clock)
        lines.warning(.displayLost, "lost")
        clock.t += 5
        lines.info(.displayFound, "found")
        #expect(warnings() == ["lost"])
        #expect(infos() == ["found"])
        #expect(lines.deadline == nil)
        clock.t += 600
        lines.flushAll(at: clock.t)
        #expect(infos().count + warnings().count == 2)
    }

    /// A quiet window later the cause is written as new.
    @Test func quietWindowStartsOver() {
        let clock = Clock()
        let (lines, infos, _) = make(clock, interval: 10)
        for _ in 0..<5 { lines.info(.hotplug, "h") }
        #expect(infos() == ["h", "h", "h"])
        clock.t += 10
        lines.flush(at: clock.t)
        #expect(infos().last == "display: hot-plug rescans: 2 more in the last 10 s (first of them: h)")
        clock.t += 20
        lines.info(.hotplug, "h")
        #expect(infos().last == "h")
    }
}
