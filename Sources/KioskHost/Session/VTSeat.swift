import Log
import CDRM
#if canImport(Glibc)
import Glibc
#endif

/// The seat of a card opened directly on a VT (no logind session manages it): the VT goes to
/// `VT_PROCESS` mode, so a switch away (Ctrl+Alt+Fn, `chvt`) waits for us — SIGUSR1 asks to
/// release: the presenter drops DRM master (`SeatEvent.pause(.asked)`) and we allow it
/// (`VT_RELDISP 1`), the console on the other VT can then set its own mode; SIGUSR2 says the
/// VT is ours again: we acknowledge (`VT_RELDISP VT_ACKACQ`) and the presenter takes master
/// back, sets the mode and sends the whole page (`.resume`). The signal handlers only write a
/// byte to a pipe; the frame loop reads it (`service`), and its idle wait polls the pipe
/// (`pollDescriptor`). `close` puts the VT back to `VT_AUTO`. With logind (`LogindSeat`) logind
/// does all of this itself.
final class VTSeat: Seat {
    /// The pipe the handlers write to ([read, write]); allocated before they are installed.
    /// Static because a signal handler has no context to find an instance by: this one
    /// descriptor pair is all it touches (async-signal-safe), the rest is the instance's.
    nonisolated(unsafe) private static let pipeFDs: UnsafeMutablePointer<Int32> = {
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        p.initialize(repeating: -1, count: 2)
        return p
    }()

    /// `SI_KERNEL`: the si_code of a signal the kernel sent (glibc's value on Linux).
    static let kernelCode: Int32 = 0x80

    private let tty: Int32
    private var previous = (sigaction(), sigaction())
    private var closed = false

    /// The read end of the pipe (for the idle wait).
    var pollDescriptor: Int32? { Self.pipeFDs[0] }

    /// Nil (one warning printed) when the VT refuses `VT_PROCESS` mode.
    init?(tty: Int32) {
        self.tty = tty
        if Self.pipeFDs[0] < 0, cdrm_pipe(Self.pipeFDs) != 0 { return nil }
        var act = sigaction()
        // Only the kernel's requests count: a SIGUSR1 sent with kill(2) by any process of the
        // same user (or root) would otherwise drop DRM master and freeze the page until a
        // SIGUSR2. The VT layer sends its signals privileged (si_code SI_KERNEL); those of
        // kill/sigqueue carry SI_USER/SI_QUEUE and are ignored, as everywhere else.
        act.__sigaction_handler.sa_sigaction = { sig, info, _ in
            guard let info, info.pointee.si_code == VTSeat.kernelCode else { return }
            var b: UInt8 = sig == SIGUSR1 ? 1 : 2
            _ = write(VTSeat.pipeFDs[1], &b, 1)
        }
        act.sa_flags = SA_RESTART | SA_SIGINFO
        sigemptyset(&act.sa_mask)
        sigaction(SIGUSR1, &act, &previous.0)
        sigaction(SIGUSR2, &act, &previous.1)
        let rc = cdrm_vt_set_mode(tty, 1, SIGUSR1, SIGUSR2)
        guard rc == 0 else {
            sigaction(SIGUSR1, &previous.0, nil)
            sigaction(SIGUSR2, &previous.1, nil)
            Log.warning("VT_SETMODE VT_PROCESS: \(String(cString: strerror(-rc))); VT switches will not hand the display over")
            return nil
        }
    }

    deinit { close() }

    /// Hands the switches asked for since the last call on: `.pause(.asked)` before allowing a
    /// switch away, `.resume` after acknowledging one back.
    func service(_ handle: (SeatEvent) -> Void) {
        guard !closed else { return }
        var b: UInt8 = 0
        while read(Self.pipeFDs[0], &b, 1) == 1 {
            if b == 1 {
                handle(.pause(.asked))
                _ = cdrm_vt_release(tty, 1)
            } else {
                _ = cdrm_vt_release(tty, CDRM_VT_ACKACQ)
                handle(.resume)
            }
        }
    }

    /// Back to `VT_AUTO`, the handlers as they were.
    func close() {
        guard !closed else { return }
        closed = true
        _ = cdrm_vt_set_mode(tty, 0, 0, 0)
        sigaction(SIGUSR1, &previous.0, nil)
        sigaction(SIGUSR2, &previous.1, nil)
    }
}
