import CSystemd
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The sd_notify(3) protocol written out, so that a send can never block: libsystemd's
/// `sd_notify` uses a blocking `sendmsg`, and when the service manager does not read its
/// socket (a stuck manager, a stray `NOTIFY_SOCKET` nobody reads) the receiver's queue fills
/// after `net.unix.max_dgram_qlen` datagrams (10 by default) and the next `sd_notify` waits
/// for room: on the frame loop that froze the kiosk (issue 32, item 11).
///
/// One `AF_UNIX`/`SOCK_DGRAM` socket, made once; every datagram goes out with `MSG_DONTWAIT`.
/// When the queue is full (`EAGAIN`) nothing is lost that matters: what was to be said is kept
/// as *pending* state — READY and STOPPING as flags, the latest STATUS only (an older one is
/// stale), one WATCHDOG — and sent as one datagram by the next send or `flush()`. The host
/// loop calls `flush()` when it wakes (`retryDelay` tells it when to wake for that).
///
/// Addresses: a path (`/run/systemd/notify`) or an abstract name (`@…`). `vsock:` addresses
/// (a VM's manager) are not supported: one log line, and nothing is sent.
public final class NotifyChannel: Sendable {
    /// What is waiting to be said, merged; sent in this order as one datagram.
    struct Pending: Equatable, Sendable {
        var ready = false
        var stopping = false
        var status: String?
        var watchdog = false
        var isEmpty: Bool { !ready && !stopping && status == nil && !watchdog }

        var text: String {
            var lines: [String] = []
            if ready { lines.append("READY=1") }
            if stopping { lines.append("STOPPING=1") }
            if let status { lines.append("STATUS=" + status) }
            if watchdog { lines.append("WATCHDOG=1") }
            return lines.joined(separator: "\n")
        }

        /// Adds `next` (later wins for STATUS). STOPPING supersedes a READY never delivered:
        /// a service on its way out does not announce itself ready.
        mutating func merge(_ next: Pending) {
            if next.stopping { stopping = true; ready = false }
            if next.ready && !stopping { ready = true }
            if let s = next.status { status = s }
            if next.watchdog { watchdog = true }
        }
    }

    struct State: Sendable {
        var fd: Int32 = -1
        var pending = Pending()
        /// Datagrams that found the queue full (merged into a later one, not lost).
        var deferred = 0
        /// WATCHDOG=1 pings merged away while the queue was full.
        var mergedPings = 0
        var blockedSince: Double?
        var failed = false
        var loggedError = false
    }

    /// `NOTIFY_SOCKET` as given.
    public let address: String
    private let addressBytes: [UInt8]
    private let state = Mutex(State())
    private let log: @Sendable (String) -> Void

    /// How long the host may wait before calling `flush()` again while something is pending.
    public static let retryDelay = 0.5

    /// nil when `address` is empty or not a form we can send to (logged once).
    public init?(address: String, log: @escaping @Sendable (String) -> Void) {
        self.address = address
        self.log = log
        let bytes = Array(address.utf8)
        guard let first = bytes.first else { return nil }
        guard first == UInt8(ascii: "/") || first == UInt8(ascii: "@"), bytes.count >= 2,
              bytes.count <= MemoryLayout.size(ofValue: sockaddr_un().sun_path) - (first == UInt8(ascii: "/") ? 1 : 0) else {
            log("NOTIFY_SOCKET=\(address) is not a socket path or abstract (@) name; systemd is not notified")
            return nil
        }
        addressBytes = bytes
    }

    deinit {
        let fd = state.withLock { $0.fd }
        if fd >= 0 { close(fd) }
    }

    /// Whether something waits to be sent (the queue was full).
    public var hasPending: Bool { state.withLock { !$0.pending.isEmpty } }

    /// Counts, for tests and the log: datagrams deferred, pings merged away.
    public var counts: (deferred: Int, mergedPings: Int) { state.withLock { ($0.deferred, $0.mergedPings) } }

    /// Queues `message` and sends everything pending as one datagram, without blocking.
    /// True when it left now.
    @discardableResult
    func post(_ message: Pending) -> Bool {
        state.withLock { s in
            if s.failed { return false }
            if message.watchdog && s.pending.watchdog { s.mergedPings += 1 }
            s.pending.merge(message)
            return sendPending(&s)
        }
    }

    /// Sends what is pending (if anything); true when nothing is left pending.
    @discardableResult
    public func flush() -> Bool {
        state.withLock { s in
            if s.failed || s.pending.isEmpty { return true }
            return sendPending(&s)
        }
    }

    /// `BARRIER=1` with the write end of a pipe, then waits up to `timeout` s for the manager
    /// to close it (it has then read everything before). False when the barrier could not be
    /// sent (queue full: nothing to wait for) or the wait ran out.
    public func barrier(timeout: Double) -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        defer { close(ends[0]) }
        let sent = state.withLock { s -> Bool in
            guard !s.failed, s.pending.isEmpty, openSocket(&s) else { return false }
            return send(s.fd, "BARRIER=1", passing: ends[1]) == 0
        }
        close(ends[1])
        guard sent else { return false }
        var p = pollfd(fd: ends[0], events: 0, revents: 0)
        let end = Self.monotonicNow() + timeout
        while true {
            let left = end - Self.monotonicNow()
            if left <= 0 { return false }
            let r = poll(&p, 1, Int32((left * 1000).rounded(.up)))
            if r > 0 { return p.revents & Int16(POLLHUP) != 0 }
            if r < 0 && errno != EINTR { return false }
        }
    }

    private func openSocket(_ s: inout State) -> Bool {
        if s.fd >= 0 { return true }
        s.fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        if s.fd < 0 {
            s.failed = true
            log("cannot make a socket for NOTIFY_SOCKET (\(String(cString: strerror(errno)))); systemd is not notified")
            return false
        }
        return true
    }

    private func send(_ fd: Int32, _ text: String, passing: Int32 = -1) -> Int32 {
        let bytes = Array(text.utf8)
        return addressBytes.withUnsafeBufferPointer { a in
            bytes.withUnsafeBufferPointer { t in
                a.baseAddress!.withMemoryRebound(to: CChar.self, capacity: a.count) { ap in
                    t.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, t.count)) { tp in
                        csystemd_notify_send(fd, ap, a.count, tp, t.count, passing)
                    }
                }
            }
        }
    }

    private func sendPending(_ s: inout State) -> Bool {
        guard openSocket(&s) else { return false }
        let r = send(s.fd, s.pending.text)
        if r == 0 {
            s.pending = Pending()
            if let since = s.blockedSince {
                s.blockedSince = nil
                let tenths = Int(((Self.monotonicNow() - since) * 10).rounded())
                log("the notify socket takes messages again after \(tenths / 10).\(tenths % 10) s; "
                    + "\(s.deferred) sends deferred, \(s.mergedPings) watchdog pings merged")
            }
            return true
        }
        if r == -EAGAIN || r == -ENOBUFS {
            s.deferred += 1
            if s.blockedSince == nil {
                s.blockedSince = Self.monotonicNow()
                log("the notify socket \(address) is full (the service manager is not reading it); "
                    + "the latest status is kept and retried, the frame loop does not wait")
            }
            return false
        }
        // Nobody bound (ECONNREFUSED, ENOENT) or not allowed: dropped, said once.
        s.pending = Pending()
        if s.loggedError { return false }
        s.loggedError = true
        log("cannot send to NOTIFY_SOCKET=\(address): \(String(cString: strerror(-r))); systemd is not notified while this lasts")
        return false
    }

    static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
