import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Threads

/// A stand-in for systemd's notify socket: an AF_UNIX datagram socket in a fresh temporary
/// folder that records every datagram with its arrival time (CLOCK_MONOTONIC seconds). Pass
/// `path` as `NOTIFY_SOCKET` to the process under test.
///
/// Ancillary data is not read: a `BARRIER=1` message's file descriptor is discarded by the
/// kernel when the receive buffer has no room for it, which closes the pipe and releases the
/// sender's sd_notify_barrier — what systemd does after processing the message.
final class NotifyListener: @unchecked Sendable {
    struct Datagram: Sendable {
        var time: Double
        var text: String
        /// The `KEY=VALUE` lines.
        var fields: [String: String] {
            var out: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                out[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            return out
        }
    }

    let folder: String
    let path: String
    private let fd: Int32
    private let lock = NSCondition()
    private var received: [Datagram] = []
    private var closed = false
    private var paused: Bool
    private var thread: Thread?

    /// `paused`: bound, but nothing is read until `resume()` (a manager that does not read its
    /// socket: after `net.unix.max_dgram_qlen` datagrams the queue is full).
    init(paused: Bool = false) throws {
        self.paused = paused
        var template = Array((NSTemporaryDirectory() + "/notify-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ListenerError("mkdtemp: \(String(cString: strerror(errno)))") }
        folder = String(cString: made)
        path = folder + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ListenerError("socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw ListenerError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw ListenerError("bind \(path): \(String(cString: strerror(errno)))") }
        // Wake up every 50 ms to notice close().
        var tv = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let t = Thread { [self] in receiveLoop() }
        thread = t
        t.start()
    }

    deinit {
        close()
        Glibc.close(fd)
        unlink(path)
        rmdir(folder)
    }

    func close() {
        lock.lock(); closed = true; lock.unlock()
    }

    /// Fills the (paused) socket's queue with "FILLER=1" datagrams from a throwaway socket
    /// until the kernel says it is full (EAGAIN), so the next sender finds it full whatever
    /// `net.unix.max_dgram_qlen` is (10 by default, 512 where systemd's sysctl sets it).
    /// Returns how many went in.
    @discardableResult
    func fill() -> Int {
        let s = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { return 0 }
        defer { Glibc.close(s) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes) }
        let filler = Array("FILLER=1".utf8)
        var n = 0
        while n < 100_000 {
            let r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(s, filler, filler.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if r < 0 { break }
            n += 1
        }
        return n
    }

    /// Starts reading (see `paused`).
    func resume() {
        lock.lock(); paused = false; lock.unlock()
    }

    var datagrams: [Datagram] {
        lock.lock(); defer { lock.unlock() }
        return received
    }

    /// Waits until `predicate` holds for the datagrams so far, or `timeout` seconds pass.
    @discardableResult
    func wait(timeout: Double, until predicate: ([Datagram]) -> Bool) -> [Datagram] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock(); defer { lock.unlock() }
        while !predicate(received), lock.wait(until: deadline) {}
        return received
    }

    private func receiveLoop() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            lock.lock(); let stop = closed, wait = paused; lock.unlock()
            if stop { return }
            if wait { usleep(20_000); continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { continue }  // timeout or EINTR
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            lock.lock()
            received.append(Datagram(time: MonotonicClock.seconds(), text: text))
            lock.broadcast()
            lock.unlock()
        }
    }
}

struct ListenerError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
