import Log
import CDRM
import SDBus
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
    private var bus: BusConnection?
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

    private static let logind = "org.freedesktop.login1"
    private static let sessionInterface = "org.freedesktop.login1.Session"
    /// How long one call to logind may take.
    private static let callTimeoutUSec: UInt64 = 2_000_000

    private init(bus: BusConnection, session: String) {
        self.bus = bus
        self.session = session
    }

    deinit { close() }

    /// Our logind session with control taken, or nil (no system bus, no session, control
    /// refused: the caller opens the card itself). (`DARKMODE_KIOSK_LOGIND=0` skips it: `DrmStart`.)
    static func connect() -> LogindSeat? {
        guard case .success(let bus) = BusConnection.open(.system) else { return nil }
        let manager = BusTarget(logind, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSessionByPID")
        let session = try? bus.call(manager, timeoutUSec: callTimeoutUSec, args: { $0.uint32(UInt32(getpid())) },
                                    read: { $0.object() }).get()
        let took = session.map { session in
            (try? bus.call(BusTarget(logind, session, sessionInterface, "TakeControl"), timeoutUSec: callTimeoutUSec,
                           args: { $0.bool(false) }, read: { _ in true }).get()) == true
        }
        guard let session, took == true else {
            bus.close()
            return nil
        }
        return LogindSeat(bus: bus, session: session)
    }

    /// The bus connection's descriptor while a device is held, else nil.
    var pollDescriptor: Int32? {
        guard let bus, device != nil else { return nil }
        let fd = bus.fd
        return fd >= 0 ? fd : nil
    }

    /// Reads what logind sent and hands our device's pauses and resumes on (in order); a
    /// "pause" is answered with `PauseDeviceComplete` after `handle` returns.
    func service(_ handle: (SeatEvent) -> Void) {
        guard let bus, let device else { return }
        _ = bus.processAll()
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .pause(let type):
                Log.info("display: paused by logind (\(type)): another VT or session has it")
                let kind = PauseKind(logindType: type)
                handle(.pause(kind))
                if kind == .asked { _ = call(bus, "PauseDeviceComplete", device) { _ in true } }
            case .resume:
                Log.info("display: resumed by logind; the whole page is sent again")
                handle(.resume)
            }
        }
    }

    /// PauseDevice (u major, u minor, s type) and ResumeDevice (u major, u minor, h fd) of our
    /// session: queued when they are for our device.
    private func onSignal(_ message: BusMessage) {
        guard let device, message.uint32() == device.major, message.uint32() == device.minor else { return }
        if message.isSignal(Self.sessionInterface, "PauseDevice") {
            guard let type = message.string() else { return }
            pending.append(.pause(type: type))
        } else {
            // The DRM fd stays the one we hold (logind sets master on it again); the one in
            // the signal is the reply's and is not kept.
            pending.append(.resume)
        }
    }

    /// An fd for the card at `path` from the session, or nil (the caller opens it itself).
    /// The last device taken is the one whose pauses and resumes are followed (the caller
    /// keeps the first card that works).
    func takeDevice(path: String) -> Int32? {
        var st = stat()
        guard let bus, stat(path, &st) == 0 else { return nil }
        let taken = (major: cdrm_major(st.st_rdev), minor: cdrm_minor(st.st_rdev))
        // The reply owns its descriptor: keep a duplicate.
        let fd = call(bus, "TakeDevice", taken) { reply in reply.unixFD().map { fcntl($0, F_DUPFD_CLOEXEC, 3) } }
        guard let fd, fd >= 0 else { return nil }
        device = taken
        for member in ["PauseDevice", "ResumeDevice"] where !matched {
            let rule = "type='signal',sender='\(Self.logind)',path='\(session)',interface='\(Self.sessionInterface)',member='\(member)'"
            _ = bus.addMatchWaiting(rule) { [unowned self] m in self.onSignal(m) }
        }
        matched = true
        return fd
    }

    /// Gives control of the session back and closes the bus (after the device is closed).
    func close() {
        guard let bus else { return }
        _ = try? bus.call(BusTarget(Self.logind, session, Self.sessionInterface, "ReleaseControl"),
                          timeoutUSec: Self.callTimeoutUSec, read: { _ in true }).get()
        bus.close()
        self.bus = nil
        device = nil
        pending = []
    }

    /// A session method taking a device (major, minor); nil on any failure.
    private func call<T>(_ bus: BusConnection, _ member: String, _ device: (major: UInt32, minor: UInt32),
                         read: (BusMessage) -> T?) -> T? {
        try? bus.call(BusTarget(Self.logind, session, Self.sessionInterface, member), timeoutUSec: Self.callTimeoutUSec,
                      args: { $0.uint32(device.major); $0.uint32(device.minor) }, read: read).get()
    }
}
