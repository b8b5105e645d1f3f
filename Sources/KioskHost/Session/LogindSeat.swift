import Log
import CDRM
import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// The DRM card from systemd-logind, the way a session's display server gets it: take control
/// of our session (`TakeControl`), then the device (`TakeDevice`), which logind opens for us
/// and makes DRM master while the session is in the foreground (it drops master itself when
/// another session or VT takes over). Used when the process runs in a logind session; without
/// one (a system service on a VT, a bare console) the card is opened directly, which needs the
/// `video` group. The bus connection stays open while the device is used: closing it gives the
/// device back.
///
/// logind also switches the session's VT itself once we have control: it sends `PauseDevice`
/// before another VT takes the display (type "pause": we stop drawing and answer
/// `PauseDeviceComplete`, then it drops master; "force": already gone) and `ResumeDevice` when
/// ours is back with master set again. As a `Seat`, `service` hands those on as `SeatEvent`s;
/// `pollDescriptor` (the bus connection's) wakes the idle wait for them.
///
/// `connect` takes control of the session; `DrmDevice.open` then asks for each card in turn
/// (`takeDevice`). When no card came from logind the host releases control at once (`close`)
/// and follows the VT itself (`VTSeat`).
final class LogindSeat: Seat {
    private var bus: OpaquePointer?
    private let session: String
    /// The device taken (major, minor): its pause and resume signals are ours.
    private var device: (major: UInt32, minor: UInt32)?
    /// The signal matches are added (once: each signal names its device).
    private var matched = false
    /// Signals read and not yet handed on (one thread: the main loop's).
    private var pending: [Signal] = []

    private enum Signal {
        /// `PauseDevice` with logind's type ("pause", "force", "gone").
        case pause(type: String)
        case resume
    }

    private init(bus: OpaquePointer, session: String) {
        self.bus = bus
        self.session = session
    }

    deinit { close() }

    /// Our logind session with control taken, or nil (no system bus, no session, control
    /// refused: the caller opens the card itself). `DARKMODE_KIOSK_LOGIND=0` skips logind.
    static func connect() -> LogindSeat? {
        if let v = getenv("DARKMODE_KIOSK_LOGIND"), String(cString: v) == "0" { return nil }
        var b: OpaquePointer?
        guard sd_bus_open_system(&b) >= 0, let bus = b else { return nil }
        let session: String? = call(bus, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                    member: "GetSessionByPID", append: { m in
            var pid = UInt32(getpid())
            return sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &pid)
        }, read: { reply in
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "o")), &p) >= 0, let p else { return nil }
            return String(cString: p)
        }) ?? nil
        let took: Bool? = session.flatMap { session in
            call(bus, path: session, interface: "org.freedesktop.login1.Session", member: "TakeControl", append: { m in
                var force: Int32 = 0
                return sd_bus_message_append_basic(m, CChar(UInt8(ascii: "b")), &force)
            }, read: { _ in true })
        }
        guard let session, took == true else {
            _ = sd_bus_flush_close_unref(bus)
            return nil
        }
        return LogindSeat(bus: bus, session: session)
    }

    /// The bus connection's descriptor while a device is held, else nil.
    var pollDescriptor: Int32? {
        guard let bus, device != nil else { return nil }
        let fd = sd_bus_get_fd(bus)
        return fd >= 0 ? fd : nil
    }

    /// Reads what logind sent and hands our device's pauses and resumes on (in order); a
    /// "pause" is answered with `PauseDeviceComplete` after `handle` returns.
    func service(_ handle: (SeatEvent) -> Void) {
        guard let bus, let device else { return }
        while sd_bus_process(bus, nil) > 0 {}
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .pause(let type):
                Log.info("display: paused by logind (\(type)): another VT or session has it")
                let kind = PauseKind(logindType: type)
                handle(.pause(kind))
                if kind == .asked { completePause(bus, device) }
            case .resume:
                Log.info("display: resumed by logind; the whole page is sent again")
                handle(.resume)
            }
        }
    }

    /// Tells logind the display is let go of (`PauseDeviceComplete`).
    private func completePause(_ bus: OpaquePointer, _ device: (major: UInt32, minor: UInt32)) {
        let _: Bool? = Self.call(bus, path: session, interface: "org.freedesktop.login1.Session", member: "PauseDeviceComplete",
                                 append: { m in
            var a = device.major, b = device.minor
            let r = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &a)
            return r < 0 ? r : sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &b)
        }, read: { _ in true })
    }

    /// PauseDevice (u major, u minor, s type) and ResumeDevice (u major, u minor, h fd) of our
    /// session: queued when they are for our device. `userdata`: the seat (unretained; the
    /// matches go with the bus, which goes before the seat).
    private static let onSignal: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let seat = Unmanaged<LogindSeat>.fromOpaque(userdata).takeUnretainedValue()
        guard let device = seat.device else { return 0 }
        var major: UInt32 = 0, minor: UInt32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &major) >= 0,
              sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &minor) >= 0,
              major == device.major, minor == device.minor else { return 0 }
        if sd_bus_message_is_signal(message, "org.freedesktop.login1.Session", "PauseDevice") > 0 {
            var type: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &type) >= 0, let type else { return 0 }
            seat.pending.append(.pause(type: String(cString: type)))
        } else {
            // The DRM fd stays the one we hold (logind sets master on it again); the one in
            // the signal is the reply's and is not kept.
            seat.pending.append(.resume)
        }
        return 0
    }

    /// An fd for the card at `path` from the session, or nil (the caller opens it itself).
    /// The last device taken is the one whose pauses and resumes are followed (the caller
    /// keeps the first card that works).
    func takeDevice(path: String) -> Int32? {
        var st = stat()
        guard let bus, stat(path, &st) == 0 else { return nil }
        let major = cdrm_major(st.st_rdev), minor = cdrm_minor(st.st_rdev)
        let fd: Int32? = Self.call(bus, path: session, interface: "org.freedesktop.login1.Session", member: "TakeDevice",
                                   append: { m in
            var a = major, b = minor
            let r = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &a)
            return r < 0 ? r : sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &b)
        }, read: { reply in
            var fd: Int32 = -1
            guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "h")), &fd) >= 0, fd >= 0 else { return -1 }
            // The reply owns its descriptor: keep a duplicate.
            return fcntl(fd, F_DUPFD_CLOEXEC, 3)
        })
        guard let fd, fd >= 0 else { return nil }
        device = (major, minor)
        let me = Unmanaged.passUnretained(self).toOpaque()
        for member in ["PauseDevice", "ResumeDevice"] where !matched {
            _ = sd_bus_match_signal(bus, nil, "org.freedesktop.login1", session, "org.freedesktop.login1.Session", member, Self.onSignal, me)
        }
        matched = true
        return fd
    }

    /// Gives control of the session back and closes the bus (after the device is closed).
    func close() {
        guard let bus else { return }
        let _: Bool? = Self.call(bus, path: session, interface: "org.freedesktop.login1.Session", member: "ReleaseControl",
                                 append: { _ in 0 }, read: { _ in true })
        _ = sd_bus_flush_close_unref(bus)
        self.bus = nil
        device = nil
        pending = []
    }

    /// A method call to logind (2 s at most); nil on any failure.
    private static func call<T>(_ bus: OpaquePointer, path: String, interface: String, member: String,
                                append: (OpaquePointer) -> Int32, read: (OpaquePointer) -> T) -> T? {
        var m: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &m, "org.freedesktop.login1", path, interface, member) >= 0, let m else { return nil }
        defer { _ = sd_bus_message_unref(m) }
        guard append(m) >= 0 else { return nil }
        var err = csystemd_error_null()
        defer { sd_bus_error_free(&err) }
        var reply: OpaquePointer?
        guard sd_bus_call(bus, m, 2_000_000, &err, &reply) >= 0, let reply else { return nil }
        defer { _ = sd_bus_message_unref(reply) }
        return read(reply)
    }
}
