import CDRM
#if canImport(Glibc)
import Glibc
#endif

/// VT switching for the DRM presenter when no logind session manages it (a card opened
/// directly on a VT): the VT goes to `VT_PROCESS` mode, so a switch away (Ctrl+Alt+Fn, `chvt`)
/// waits for us — SIGUSR1 asks to release: we drop DRM master and allow it (`VT_RELDISP 1`), the
/// console on the other VT can then set its own mode; SIGUSR2 says the VT is ours again: we
/// acknowledge (`VT_RELDISP VT_ACKACQ`), take master back, set the mode and send the whole
/// page. The signal handlers only write a byte to a pipe; the frame loop reads it (`service`),
/// and its idle wait polls the pipe (`fd`). `close` puts the VT back to `VT_AUTO`. With logind
/// (`LogindDevice`) logind does all of this itself.
final class VTSwitch {
    /// The pipe the handlers write to ([read, write]); allocated before they are installed.
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
    var fd: Int32 { Self.pipeFDs[0] }

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
            guard let info, info.pointee.si_code == VTSwitch.kernelCode else { return }
            var b: UInt8 = sig == SIGUSR1 ? 1 : 2
            _ = write(VTSwitch.pipeFDs[1], &b, 1)
        }
        act.sa_flags = SA_RESTART | SA_SIGINFO
        sigemptyset(&act.sa_mask)
        sigaction(SIGUSR1, &act, &previous.0)
        sigaction(SIGUSR2, &act, &previous.1)
        let rc = cdrm_vt_set_mode(tty, 1, SIGUSR1, SIGUSR2)
        guard rc == 0 else {
            sigaction(SIGUSR1, &previous.0, nil)
            sigaction(SIGUSR2, &previous.1, nil)
            Diagnostics.printError("darkmode-kiosk: VT_SETMODE VT_PROCESS: \(String(cString: strerror(-rc))); VT switches will not hand the display over",
                                   priority: .warning)
            return nil
        }
    }

    deinit { close() }

    /// Handles the switches asked for since the last call: `release` before allowing a switch
    /// away, `acquire` after acknowledging one back. Returns true when the VT came back.
    func service(release: () -> Void, acquire: () -> Void) -> Bool {
        guard !closed else { return false }
        var came = false
        var b: UInt8 = 0
        while read(fd, &b, 1) == 1 {
            if b == 1 {
                release()
                _ = cdrm_vt_release(tty, 1)
            } else {
                _ = cdrm_vt_release(tty, CDRM_VT_ACKACQ)
                acquire()
                came = true
            }
        }
        return came
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
