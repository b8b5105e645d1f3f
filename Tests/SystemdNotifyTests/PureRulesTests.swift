import Testing
@testable import SystemdNotify

@Suite struct WatchdogScheduleTests {
    @Test func intervalIsHalfTheTimeout() throws {
        #expect(WatchdogSchedule(watchdogMicroseconds: 0) == nil)
        let s = try #require(WatchdogSchedule(watchdogMicroseconds: 20_000_000))
        #expect(s.interval == 10)
        #expect(WatchdogSchedule(interval: 0) == nil)
        #expect(WatchdogSchedule(interval: -.infinity) == nil)
    }

    @Test func firstPingIsDueAtOnceThenEveryInterval() throws {
        var s = try #require(WatchdogSchedule(watchdogMicroseconds: 2_000_000))
        #expect(s.isDue(now: 50))
        #expect(s.timeoutMilliseconds(now: 50, idle: -1) == 0)
        s.pinged(at: 50)
        #expect(!s.isDue(now: 50.999))
        #expect(s.isDue(now: 51))
        #expect(s.nextDue(now: 50.2) == 51)
    }

    @Test func timeoutIsTheSoonerOfIdleAndNextPingRoundedUp() throws {
        var s = try #require(WatchdogSchedule(interval: 1))
        s.pinged(at: 10)
        #expect(s.timeoutMilliseconds(now: 10.25, idle: -1) == 750)      // forever → the ping
        #expect(s.timeoutMilliseconds(now: 10.25, idle: 100) == 100)     // the loop's own sooner
        #expect(s.timeoutMilliseconds(now: 10.9995, idle: -1) == 1)      // rounded up, not 0
        #expect(s.timeoutMilliseconds(now: 11.5, idle: 100) == 0)        // overdue
    }

    @Test func hugeIntervalsDoNotOverflow() throws {
        var s = try #require(WatchdogSchedule(watchdogMicroseconds: UInt64.max))
        s.pinged(at: 0)
        #expect(s.timeoutMilliseconds(now: 0, idle: -1) == Int32.max)
    }
}

import Glibc

/// NOTIFY_SOCKET's two forms: a path, and an abstract name ('@' for the leading NUL byte), as
/// systemd passes for user managers in containers.
@Suite struct NotifyAddressTests {
    @Test func abstractAddressReceivesTheDatagram() {
        let name = "dmk-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { Issue.record("socket failed"); return }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = [UInt8(0)] + Array(name.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes) }
        let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard rc == 0 else { Issue.record("bind @\(name): \(String(cString: strerror(errno)))"); return }
        guard let channel = NotifyChannel(address: "@" + name, log: { _ in }) else { Issue.record("@\(name) refused"); return }
        #expect(channel.post(.init(ready: true, status: "abstract")))
        var buf = [UInt8](repeating: 0, count: 256)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        #expect(n > 0 && String(decoding: buf[0..<max(0, n)], as: UTF8.self) == "READY=1\nSTATUS=abstract")
    }

    @Test func unsupportedAddressesAreSaidOnce() {
        let box = LinesBox()
        #expect(NotifyChannel(address: "vsock:2:1234", log: { box.add($0) }) == nil)
        #expect(NotifyChannel(address: "", log: { box.add($0) }) == nil)
        let lines = box.lines
        #expect(lines.count == 1 && lines[0].contains("vsock:2:1234"), "\(lines)")
    }
}

final class LinesBox: @unchecked Sendable {
    var lines: [String] = []
    func add(_ l: String) { lines.append(l) }
}

/// Issue 32, item 12: WATCHDOG_USEC=1 asked for a ping every half microsecond.
@Suite struct WatchdogClampTests {
    @Test func tinyIntervalsAreClampedTo50Milliseconds() throws {
        for usec: UInt64 in [1, 2, 10, 99_999] {
            let s = try #require(WatchdogSchedule(watchdogMicroseconds: usec))
            #expect(s.interval == WatchdogSchedule.minimumInterval, "WATCHDOG_USEC=\(usec)")
            #expect(s.requestedInterval == Double(usec) / 2_000_000)
        }
        let fine = try #require(WatchdogSchedule(watchdogMicroseconds: 100_000))
        #expect(fine.interval == 0.05 && fine.requestedInterval == nil)
        let usual = try #require(WatchdogSchedule(watchdogMicroseconds: 20_000_000))
        #expect(usual.interval == 10 && usual.requestedInterval == nil)
    }

    /// The notifier's pending state: the latest STATUS wins, STOPPING drops a READY that never
    /// left, and the merged datagram keeps the protocol's order.
    @Test func pendingMessagesMerge() {
        var p = NotifyChannel.Pending(ready: true, status: "a")
        p.merge(.init(watchdog: true))
        p.merge(.init(status: "b"))
        #expect(p.text == "READY=1\nSTATUS=b\nWATCHDOG=1")
        p.merge(.init(stopping: true, status: "bye"))
        #expect(p.text == "STOPPING=1\nSTATUS=bye\nWATCHDOG=1")
        p.merge(.init(ready: true))
        #expect(!p.ready)
    }
}

@Suite struct WatchdogEnvironmentTests {
    @Test func decisions() {
        typealias D = WatchdogEnvironment.Decision
        func decide(_ usec: String?, _ pid: String?) -> D {
            WatchdogEnvironment.decide(usec: usec, pid: pid, ownPID: 100, parentPID: 42)
        }
        #expect(decide(nil, nil) == .off(reason: "WATCHDOG_USEC is not set"))
        #expect(decide("", "100") == .off(reason: "WATCHDOG_USEC is not set"))
        #expect(decide("0", nil) == .off(reason: "WATCHDOG_USEC=0 is not a positive integer"))
        #expect(decide("30s", nil) == .off(reason: "WATCHDOG_USEC=30s is not a positive integer"))
        #expect(decide("30000000", nil) == .on(microseconds: 30_000_000, asParentOf: false))
        #expect(decide("30000000", "100") == .on(microseconds: 30_000_000, asParentOf: false))
        #expect(decide("30000000", "42") == .on(microseconds: 30_000_000, asParentOf: true))
        #expect(decide("30000000", "7") == .off(reason: "WATCHDOG_PID=7 is neither this process (100) nor its parent (42)"))
        #expect(decide("30000000", "x") == .off(reason: "WATCHDOG_PID=x is not a process id"))
    }
}

