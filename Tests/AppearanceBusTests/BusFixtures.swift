import Foundation
import Glibc
import Synchronization
import Testing
import Appearance
@testable import AppearanceBus
import SDBus
import Threads

/// Reads lines from a pipe with a deadline (never blocks a test forever).
final class LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    init(_ handle: FileHandle) { fd = handle.fileDescriptor }

    func line(timeout: Double) -> String? {
        let end = MonotonicClock.seconds() + timeout
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let s = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return s
            }
            let left = end - MonotonicClock.seconds()
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}

/// A private dbus-daemon (session configuration) in its own temporary folder; `stop()` ends it.
final class PrivateBus {
    let process = Process()
    let folder: String
    let address: String

    init() throws {
        folder = NSTemporaryDirectory() + "appearance-bus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--address=unix:path=\(folder)/bus", "--nofork", "--print-address=1"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        guard let a = LineReader(out.fileHandleForReading).line(timeout: 10), a.hasPrefix("unix:") else {
            process.terminate()
            throw FixtureError("dbus-daemon printed no address")
        }
        address = a
    }

    func stop() {
        // SIGKILL: the test runner's threads may block SIGTERM, and a child inherits that mask.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Tests/AppearanceBusTests/Mocks/mock_server.py on a bus, driven through stdin.
final class BusMock {
    let process = Process()
    let input = Pipe()
    let reader: LineReader

    init(bus: PrivateBus, kind: String, parameters: String = "{}") throws {
        guard let script = Bundle.module.path(forResource: "mock_server", ofType: "py", inDirectory: "Mocks") else {
            throw FixtureError("Mocks/mock_server.py is not in the test bundle")
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, bus.address, kind, parameters]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = input
        reader = LineReader(out.fileHandleForReading)
        try process.run()
        guard reader.line(timeout: 20) == "READY" else {
            stop()
            throw FixtureError("\(kind) mock did not start (is python3-dbusmock installed for /usr/bin/python3?)")
        }
    }

    /// Sends a command; returns its answer line.
    @discardableResult
    func send(_ command: String) -> String? {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        return reader.line(timeout: 10)
    }

    /// The monotonic instant the mock emitted at.
    func emit(_ command: String) -> Double? {
        guard let answer = send(command), answer.hasPrefix("EMITTED ") else { return nil }
        return Double(answer.dropFirst(8))
    }

    func stop() {
        if process.isRunning {
            try? input.fileHandleForWriting.close()
            let end = MonotonicClock.seconds() + 5
            while process.isRunning && MonotonicClock.seconds() < end { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}

/// Collects the runner's events with the monotonic time each arrived.
final class Recorder: Sendable {
    private let events = Mutex<[(event: AppearanceEvent, at: Double)]>([])

    var callback: @Sendable (AppearanceEvent) -> Void {
        { [self] e in
            let t = MonotonicClock.seconds()
            events.withLock { $0.append((e, t)) }
        }
    }

    var all: [(event: AppearanceEvent, at: Double)] { events.withLock { $0 } }
    var count: Int { events.withLock { $0.count } }

    var appearances: [(SystemAppearance, Double)] {
        all.compactMap { if case .systemAppearance(let a) = $0.event { return (a, $0.at) }; return nil }
    }
    var fileChanges: [Double] {
        all.compactMap { if case .preferencesFileChanged = $0.event { return $0.at }; return nil }
    }
    var logs: [String] {
        all.compactMap { if case .log(let s) = $0.event { return s }; return nil }
    }

    /// Waits until an event after index `from` satisfies `match`; returns it and its time.
    func wait(from: Int = 0, timeout: Double = 10, _ match: (AppearanceEvent) -> Bool) -> (AppearanceEvent, Double)? {
        let end = MonotonicClock.seconds() + timeout
        while MonotonicClock.seconds() < end {
            let list = all
            if list.count > from, let hit = list[from...].first(where: { match($0.event) }) { return (hit.event, hit.at) }
            usleep(1000)
        }
        return nil
    }

    func waitAppearance(from: Int = 0, timeout: Double = 10, _ match: @escaping (SystemAppearance) -> Bool) -> (SystemAppearance, Double)? {
        guard let (e, t) = wait(from: from, timeout: timeout, {
            if case .systemAppearance(let a) = $0 { return match(a) }
            return false
        }), case .systemAppearance(let a) = e else { return nil }
        return (a, t)
    }
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// utime + stime of one thread of this process, in clock ticks.
func threadTicks(_ tid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the command: state is field 3; utime and stime are fields 14 and 15.
    guard fields.count > 13, let u = Int(fields[11]), let s = Int(fields[12]) else { return nil }
    return u + s
}
