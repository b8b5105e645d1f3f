import CMosquitto
import Fleet
import LogLimit
import Synchronization
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// What the client needs beyond `MQTTSettings`: the resolved client id, the password (read
/// from its file by the caller; never logged), the version for the state and discovery.
public struct MQTTClientOptions: Sendable {
    public var settings: MQTTSettings
    public var clientId: String
    public var password: String?
    public var version: String

    public init(settings: MQTTSettings, clientId: String, password: String?, version: String) {
        self.settings = settings
        self.clientId = clientId
        self.password = password
        self.version = version
    }

    public var topics: FleetTopics {
        FleetTopics(prefix: settings.topicPrefix, id: clientId, groups: settings.groups, discoveryPrefix: settings.discoveryPrefix)
    }
}

/// A command that arrived, for the frame loop (through a `Mailbox`).
public struct FleetCommandArrival: Sendable {
    public let order: FleetOrder
    public let addressee: FleetTopics.Addressee
    /// CLOCK_MONOTONIC seconds when it arrived.
    public let at: Double
}

/// The kiosk's MQTT client (libmosquitto) on its own poll() thread (a `ServiceThread`): the frame
/// loop never waits for the network, and `run` never waits for the broker (READY=1 is sent
/// whether or not it answers).
///
/// - Connects with a persistent session (clean session off, the client id fixed) and QoS 1
///   subscriptions to the kiosk's command topic and its groups', so a command sent while it was
///   briefly away arrives once when it is back; a retained command is refused (it would come
///   back at every subscription and undo later taps).
/// - The will is `offline` (retained) on the availability topic; `online` is published at each
///   connection, `offline` again at a clean stop.
/// - At each connection: `online`, the latest state, the discovery configs (or their deletion).
/// - Commands go to `commands` (a `Mailbox` of `FleetCommandArrival`, bounded; when it is full
///   the latest command waits on this thread and is posted again: the newest always arrives).
/// - `publishState` (any thread) keeps the latest state and wakes the thread, which publishes
///   it retained (QoS 1) at once when connected, else at the next connection.
/// - Connecting never blocks the thread (`mosquitto_connect_async`: the TCP connection and the
///   TLS handshake go on in the poll; only a host name's lookup blocks): an attempt without a
///   CONNACK after `connectTimeout` is dropped and tried again; a stop does not wait for one
///   (one line says it was unfinished). TLS runs on the client's own OpenSSL context
///   (`TLSVerifyNotes`), so a refused certificate's line says why.
/// - A failed or lost connection is tried again after `ReconnectBackoff` (1 s doubling to 60 s,
///   jittered); each change of the connection's state is one log line (a failure repeated with
///   the same reason is not logged again); bad messages go through the rate-limited `faults`.
public final class MQTTClient: @unchecked Sendable {
    public let options: MQTTClientOptions
    public let topics: FleetTopics
    /// Commands for the frame loop (attach its wake-up; drain on the loop thread).
    public let commands = Mailbox<FleetCommandArrival>(limit: 64)
    private let thread = ServiceThread()
    private let latestState = Mutex<(text: String, generation: Int)?>(nil)
    private let log: @Sendable (String) -> Void
    private let faults: SharedLogLimiter

    // Client-thread state (only touched on the client thread, or before it starts / after it ends).
    private var mosq: OpaquePointer?
    private var connected = false
    private var backoff = ReconnectBackoff()
    private var retryAt = 0.0
    /// When the attempt in progress began (nil: none; connected, or waiting for `retryAt`).
    private var attemptStartedAt: Double?
    /// The TLS context handed to libmosquitto (`TLSVerifyNotes`), nil without TLS.
    private var tlsContext: OpaquePointer?
    /// The connection error met during the attempt (`connectionErrno`), nil for none.
    private var attemptErrno: Int32?
    private var publishedGeneration = -1
    private var unposted: FleetCommandArrival?
    /// The last reason logged for a failure, so a repeated failure is not logged again.
    private var lastFailure: String?
    /// The libmosquitto log's last error line during this attempt (TLS errors are told there).
    private var attemptError: String?

    /// `log`: connection state changes (one line each); `faults`: rate-limited bad messages.
    public init(options: MQTTClientOptions, log: @escaping @Sendable (String) -> Void, faults: SharedLogLimiter) {
        self.options = options
        topics = options.topics
        self.log = log
        self.faults = faults
    }

    /// Starts the thread; false when it could not (the kiosk runs without the fleet).
    public func start() -> Bool {
        guard setUp() else { return false }
        return thread.start(name: "mqtt") { [self] in run() }
    }

    /// The state JSON to publish (retained) now or at the next connection. Any thread.
    public func publishState(_ json: String) {
        latestState.withLock { s in s = (json, (s?.generation ?? 0) + 1) }
        thread.wake()
    }

    /// Publishes `offline`, disconnects, ends the thread. Safe to call twice.
    public func stop() {
        thread.stop()
        if let mosq {
            mosquitto_destroy(mosq)
            self.mosq = nil
        }
    }

    // MARK: Set-up

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    private func setUp() -> Bool {
        guard Self.libraryReady else { log("mqtt: libmosquitto could not start; the fleet is off"); return false }
        let s = options.settings
        guard let m = mosquitto_new(options.clientId, false, Unmanaged.passUnretained(self).toOpaque()) else {
            log("mqtt: cannot make a client for id \"\(options.clientId)\" (\(String(cString: strerror(errno)))); the fleet is off")
            return false
        }
        mosq = m
        _ = mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        _ = mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1)
        if let user = s.username, mosquitto_username_pw_set(m, user, options.password) != MOSQ_ERR_SUCCESS.rawValue {
            log("mqtt: cannot set the user name; the fleet is off")
            return false
        }
        let offline = Array("offline".utf8)
        if mosquitto_will_set(m, topics.availability, Int32(offline.count), offline, 1, true) != MOSQ_ERR_SUCCESS.rawValue {
            log("mqtt: cannot set the will on \(topics.availability); the fleet is off")
            return false
        }
        if s.broker.tls {
            // The CA file, or the system's store; the broker's host name is checked against its
            // certificate (tls_insecure stays false), the peer verified.
            // Our own context, with the same checks, that also notes why a broker's certificate
            // is refused (`TLSVerifyNotes`). Kept for the process's life.
            switch TLSVerifyNotes.makeContext(host: s.broker.host, isAddress: s.broker.isAddress, caFile: s.caFile,
                                              certificate: s.clientCertificate, key: s.clientKey) {
            case .failure(let problem):
                log("mqtt: TLS set-up failed: \(problem.text); the fleet is off")
                return false
            case .success(let ctx):
                guard mosquitto_void_option(m, MOSQ_OPT_SSL_CTX, UnsafeMutableRawPointer(ctx)) == MOSQ_ERR_SUCCESS.rawValue else {
                    log("mqtt: libmosquitto did not take the TLS context; the fleet is off")
                    return false
                }
                _ = mosquitto_int_option(m, MOSQ_OPT_SSL_CTX_WITH_DEFAULTS, 0)
                tlsContext = ctx
            }
            let rc = mosquitto_tls_set(m, s.caFile, s.caFile == nil ? "/etc/ssl/certs" : nil, s.clientCertificate, s.clientKey, nil)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                log("mqtt: TLS files not usable (\(String(cString: mosquitto_strerror(rc)))); the fleet is off")
                return false
            }
            _ = mosquitto_tls_opts_set(m, CMOSQUITTO_VERIFY_PEER, nil, nil)
            _ = mosquitto_tls_insecure_set(m, false)
        }
        mosquitto_connect_callback_set(m) { _, obj, rc in
            guard let obj else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().connected(rc: rc)
        }
        mosquitto_disconnect_callback_set(m) { _, obj, rc in
            guard let obj else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().disconnected(rc: rc)
        }
        mosquitto_message_callback_set(m) { _, obj, message in
            guard let obj, let message else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().received(message.pointee)
        }
        mosquitto_log_callback_set(m) { _, obj, level, text in
            guard let obj, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().attemptError = String(cString: text)
        }
        return true
    }

    // MARK: The thread

    private func run() {
        guard let m = mosq else { return }
        var fds = [pollfd(fd: thread.wakeDescriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: -1, events: 0, revents: 0)]
        var attempted = false
        while !thread.stopping {
            attemptIfDue(m, attempted: &attempted)
            if let u = unposted, commands.post(u) { unposted = nil }
            if connected { publishStateIfNew() }
            let active = connected || attemptStartedAt != nil
            let sock = active ? mosquitto_socket(m) : -1
            fds[1] = pollfd(fd: sock, events: sock >= 0 ? Int16(POLLIN) | (mosquitto_want_write(m) ? Int16(POLLOUT) : 0) : 0, revents: 0)
            let n = poll(&fds, 2, pollTimeout(active: active))
            if n < 0 && errno != EINTR { break }
            if fds[0].revents & Int16(POLLIN) != 0 { thread.drainWake() }
            guard sock >= 0 else { continue }
            service(m, socket: sock, revents: fds[1].revents)
        }
        if connected {
            stopCleanly(m)
        } else if let started = attemptStartedAt {
            log("mqtt: stopping with the connection to \(options.settings.broker.url) unfinished after "
                + "\(Self.seconds(MonotonicClock.seconds() - started)) (\(stallDetail(m))); not waiting for it")
            abandonAttempt()
        }
    }

    /// A connection attempt when one is due (not connected, none under way, the backoff's time
    /// come), and the end of one that took longer than `connectTimeout`.
    private func attemptIfDue(_ m: OpaquePointer, attempted: inout Bool) {
        let now = MonotonicClock.seconds()
        if !connected && attemptStartedAt == nil && now >= retryAt {
            attemptError = nil
            // Non-blocking: the TCP connection and the TLS handshake go on in the poll
            // (only the host name's lookup blocks, on this thread); the CONNACK arrives as
            // `connected(rc:)`. A reconnect closes what is left of the last attempt's socket.
            let rc = attempted ? mosquitto_reconnect_async(m)
                : mosquitto_connect_async(m, options.settings.broker.host, Int32(options.settings.broker.port), 30)
            attempted = true
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                attemptStartedAt = now
                attemptErrno = Self.connectionErrno(errno)
            } else {
                failed(reason: reason(rc))
            }
        }
        if let started = attemptStartedAt, MonotonicClock.seconds() - started >= Self.connectTimeout {
            abandonAttempt()
            failed(reason: "no answer within \(Int(Self.connectTimeout)) s (\(stallDetail(m)))")
        }
    }

    /// The poll's bound: a second while connected (libmosquitto's keep-alive), the next retry
    /// while idle, the attempt's timeout, 10 ms while a command waits for room in the mailbox.
    private func pollTimeout(active: Bool) -> Int32 {
        var timeout: Int32 = active ? 1000 : Self.milliseconds(until: retryAt)
        if let started = attemptStartedAt { timeout = min(timeout, Self.milliseconds(until: started + Self.connectTimeout)) }
        if unposted != nil { timeout = min(timeout, 10) }
        return timeout
    }

    /// The socket's readiness handed to libmosquitto: the read (the TLS handshake's steps while
    /// connecting), the write, the keep-alive; a connection that failed or dropped said once.
    private func service(_ m: OpaquePointer, socket sock: Int32, revents: Int16) {
        // While connecting, any readiness (writable included) moves the TLS handshake on:
        // libmosquitto does that step in loop_read.
        let connecting = !connected && attemptStartedAt != nil
        if connecting, revents & Int16(POLLERR | POLLHUP) != 0 {
            // The TCP connection failed (refused, unreachable) or was closed while TLS was
            // being set up: libmosquitto's TLS step would only try again, so say it here.
            abandonAttempt()
            failed(reason: Self.socketError(sock) ?? attemptErrno.map { String(cString: strerror($0)) }
                   ?? "the broker closed the connection")
            return
        }
        if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 || (connecting && revents != 0) {
            errno = 0
            let rc = mosquitto_loop_read(m, 1)
            if connecting, let e = Self.connectionErrno(errno) { attemptErrno = e }
            if rc != MOSQ_ERR_SUCCESS.rawValue { lost(reason(rc)) }
        }
        if mosquitto_socket(m) >= 0, connected || attemptStartedAt != nil,
           revents & Int16(POLLOUT) != 0 || mosquitto_want_write(m) {
            let rc = mosquitto_loop_write(m, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue { lost(reason(rc)) }
        }
        if mosquitto_socket(m) >= 0, connected {
            let rc = mosquitto_loop_misc(m)
            if rc != MOSQ_ERR_SUCCESS.rawValue && rc != MOSQ_ERR_NO_CONN.rawValue { lost(reason(rc)) }
        }
    }

    /// How long an attempt may take from the TCP connection to the CONNACK (the TLS handshake
    /// included) before it is dropped and tried again at the backoff's pace.
    public static let connectTimeout = 10.0

    /// Drops the attempt in progress: the socket is shut down (libmosquitto closes it at the
    /// next attempt, or when the client is destroyed).
    private func abandonAttempt() {
        attemptStartedAt = nil
        if let m = mosq {
            let fd = mosquitto_socket(m)
            if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Where an unfinished attempt is: whether the broker took the TCP connection.
    private func stallDetail(_ m: OpaquePointer) -> String {
        let fd = mosquitto_socket(m)
        guard fd >= 0 else { return "no socket" }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let tcpUp = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        guard tcpUp else { return "the TCP connection was not accepted" }
        return options.settings.broker.tls ? "the broker accepted TCP, but the TLS handshake or the CONNACK never came"
            : "the broker accepted TCP, but no CONNACK came"
    }

    /// `e` when it says why a TCP connection failed (TLS being set up over a non-blocking
    /// socket, OpenSSL meets the error first and libmosquitto only tries again: kept for the
    /// line when the socket then reports its hang-up).
    private static func connectionErrno(_ e: Int32) -> Int32? {
        [ECONNREFUSED, ECONNRESET, ENETUNREACH, EHOSTUNREACH, ETIMEDOUT, EPIPE].contains(e) ? e : nil
    }

    /// The socket's pending error (SO_ERROR) in words; nil for none.
    private static func socketError(_ fd: Int32) -> String? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error != 0 else { return nil }
        return String(cString: strerror(error))
    }

        private static func milliseconds(until t: Double) -> Int32 {
        Int32(max(0, min(1000, (t - MonotonicClock.seconds()) * 1000)).rounded(.up))
    }

    /// `offline` (retained), sent and flushed within a second, then a clean DISCONNECT (the
    /// will is not sent for it).
    private func stopCleanly(_ m: OpaquePointer) {
        let offline = Array("offline".utf8)
        _ = mosquitto_publish(m, nil, topics.availability, Int32(offline.count), offline, 1, true)
        connected = false
        let end = MonotonicClock.seconds() + 1
        while mosquitto_want_write(m) && MonotonicClock.seconds() < end {
            if mosquitto_loop_write(m, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
            if mosquitto_want_write(m) { usleep(1000) }
        }
        _ = mosquitto_disconnect(m)
        // The DISCONNECT is queued: written (and the socket closed) by loop_write.
        while mosquitto_socket(m) >= 0 && mosquitto_want_write(m) && MonotonicClock.seconds() < end + 0.5 {
            if mosquitto_loop_write(m, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        log("mqtt: disconnected from \(options.settings.broker.url) (stopping; availability offline)")
        connected = false
    }

    private func publishStateIfNew() {
        guard let m = mosq, let s = latestState.withLock({ $0 }), s.generation != publishedGeneration else { return }
        let bytes = Array(s.text.utf8)
        if mosquitto_publish(m, nil, topics.state, Int32(bytes.count), bytes, 1, true) == MOSQ_ERR_SUCCESS.rawValue {
            publishedGeneration = s.generation
        }
    }

    // MARK: Callbacks (on the client thread, inside loop_read)

    private func connected(rc: Int32) {
        guard let m = mosq else { return }
        attemptStartedAt = nil
        guard rc == 0 else {
            failed(reason: "the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))"
                   + (rc == 4 || rc == 5 ? " (check username and the password file)" : ""))
            _ = mosquitto_disconnect(m)
            return
        }
        connected = true
        backoff.reset()
        lastFailure = nil
        log("mqtt: connected to \(options.settings.broker.url) as \"\(options.clientId)\"; commands on \(topics.subscriptions.joined(separator: ", "))")
        for t in topics.subscriptions { _ = mosquitto_subscribe(m, nil, t, 1) }
        let online = Array("online".utf8)
        _ = mosquitto_publish(m, nil, topics.availability, Int32(online.count), online, 1, true)
        publishedGeneration = -1
        publishStateIfNew()
        for d in Discovery.messages(topics, version: options.version, enabled: options.settings.discovery) {
            let bytes = Array(d.payload.utf8)
            _ = mosquitto_publish(m, nil, d.topic, Int32(bytes.count), bytes.isEmpty ? nil : bytes, 1, true)
        }
    }

    private func disconnected(rc: Int32) {
        guard connected else { return }
        lost(rc == 0 ? "disconnected" : reason(rc))
    }

    private func received(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let count = Int(max(0, message.payloadlen))
        let parsed = FleetCommand.parse(topic: topic, length: count,
                                        payload: message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [],
                                        retained: message.retain, topics: topics)
        switch parsed {
        case .failure(let problem):
            faults.note(key: problem.key, line: problem.line(topic: topic))
        case .success(let (order, addressee)):
            let arrival = FleetCommandArrival(order: order, addressee: addressee, at: MonotonicClock.seconds())
            if unposted != nil || !commands.post(arrival) { unposted = arrival }
        }
    }

    // MARK: Connection state

    private func failed(reason: String) {
        let wasConnected = connected
        connected = false
        let delay = backoff.nextDelay(random: Double.random(in: 0..<1))
        retryAt = MonotonicClock.seconds() + delay
        if wasConnected || reason != lastFailure {
            log("mqtt: cannot connect to \(options.settings.broker.url): \(reason); trying again in \(Self.seconds(delay)) "
                + "(backoff 1 s doubling to 60 s; this line is not repeated while the reason stays the same)")
        }
        lastFailure = reason
    }

    private func lost(_ why: String) {
        guard let m = mosq else { return }
        if connected {
            connected = false
            let delay = backoff.nextDelay(random: Double.random(in: 0..<1))
            retryAt = MonotonicClock.seconds() + delay
            log("mqtt: connection to \(options.settings.broker.url) lost (\(why)); reconnecting in \(Self.seconds(delay))")
            lastFailure = nil
            _ = mosquitto_disconnect(m)
        } else if attemptStartedAt != nil {
            // The connection never got its CONNACK (e.g. TLS refused): a failed attempt.
            abandonAttempt()
            failed(reason: why)
        }
    }

    private static func seconds(_ s: Double) -> String {
        let tenths = Int((s * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// A failure's reason in words: libmosquitto's error, with the TLS detail its log gave.
    private func reason(_ rc: Int32) -> String {
        var text: String
        if rc == MOSQ_ERR_ERRNO.rawValue {
            text = String(cString: strerror(errno))
        } else {
            text = String(cString: mosquitto_strerror(rc))
        }
        if rc == MOSQ_ERR_TLS.rawValue || attemptError?.contains("SSL") == true || attemptError?.contains("certificate") == true {
            text = "TLS failed"
            if let detail = attemptError { text += ": " + detail }
            let why = tlsContext.flatMap(TLSVerifyNotes.take)
            if let why, attemptError?.contains("certificate verify failed") == true {
                text += " (the broker's certificate: \(why); host \(options.settings.broker.host), CA \(options.settings.caFile ?? "the system's store"))"
            } else if let d = attemptError, d.contains("certificate verify failed") {
                text += " (the broker's certificate is not signed by the CA in \(options.settings.caFile ?? "the system's store"), has expired, "
                    + "or does not name the host \(options.settings.broker.host))"
            }
        }
        return text
    }
}
