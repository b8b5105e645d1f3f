import CWayland
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// The compositor's `wp_presentation` global: asks, per commit, when the frame was shown, and
/// says on which clock those times are (`clock_id`; weston's is CLOCK_MONOTONIC_RAW, the spec
/// allows any clock_gettime clock). cage 0.1.4 does not offer it; weston and sway do.
final class PresentationClock {
    let proxy: OpaquePointer
    /// The clock the feedback times are on; nil until the compositor says (right after binding).
    private(set) var clock: clockid_t?

    init(proxy: OpaquePointer) {
        self.proxy = proxy
        _ = CWayland_presentationAddListener(proxy, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// A feedback object for the surface's next commit (on the presentation's event queue).
    func feedback(for surface: OpaquePointer) -> FrameFeedback? {
        guard let f = CWayland_presentationFeedback(proxy, surface) else { return nil }
        return FrameFeedback(proxy: f)
    }

    /// A time on the presentation clock as CLOCK_MONOTONIC seconds (nil before `clock_id`):
    /// moved by how far the two clocks are apart now.
    func monotonicSeconds(_ t: Double) -> Double? {
        guard let clock else { return nil }
        var ts = timespec()
        guard clock_gettime(clock, &ts) == 0 else { return nil }
        let now = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        return MonotonicClock.seconds() - (now - t)
    }

    func destroy() { CWayland_presentationDestroy(proxy) }

    nonisolated(unsafe) static let listener: UnsafeMutablePointer<CWayland_presentationListener> = {
        let l = UnsafeMutablePointer<CWayland_presentationListener>.allocate(capacity: 1)
        l.initialize(to: CWayland_presentationListener(clock_id: { data, _, clock in
            guard let data else { return }
            Unmanaged<PresentationClock>.fromOpaque(data).takeUnretainedValue().clock = clockid_t(clock)
        }))
        return l
    }()
}

/// What the compositor said of one commit: nothing yet, shown (when, on the presentation clock,
/// and how: `wp_presentation_feedback.kind` flags), or discarded (replaced before it was shown,
/// or never shown). Holds its proxy until then; `destroy` drops it either way.
final class FrameFeedback {
    enum State: Equatable {
        case pending
        case presented(seconds: Double, flags: UInt32)
        case discarded
    }

    private(set) var state = State.pending
    private var proxy: OpaquePointer?

    init(proxy: OpaquePointer) {
        self.proxy = proxy
        _ = CWayland_feedbackAddListener(proxy, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Destroys the client's proxy (the compositor forgets the object when it sends its last
    /// event; one destroyed before that is a zombie whose late event libwayland drops).
    func destroy() {
        if let proxy { wl_proxy_destroy(proxy) }
        proxy = nil
    }

    deinit { destroy() }

    /// The protocol's split time (seconds as two 32-bit halves, then nanoseconds) as seconds.
    static func seconds(secHi: UInt32, secLo: UInt32, nsec: UInt32) -> Double {
        Double(UInt64(secHi) << 32 | UInt64(secLo)) + Double(nsec) / 1e9
    }

    /// `wp_presentation_feedback.kind` flags by name ("none" for none): vsync (shown at a vertical retrace),
    /// hw_clock (the time from the display hardware), hw_completion (the hardware said the
    /// flip completed), zero_copy (scanned out from the client's buffer).
    static func flagText(_ flags: UInt32) -> String {
        let names = [(1, "vsync"), (2, "hw_clock"), (4, "hw_completion"), (8, "zero_copy")].compactMap { flags & $0.0 != 0 ? $0.1 : nil }
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    nonisolated(unsafe) static let listener: UnsafeMutablePointer<CWayland_feedbackListener> = {
        let l = UnsafeMutablePointer<CWayland_feedbackListener>.allocate(capacity: 1)
        l.initialize(to: CWayland_feedbackListener(
            sync_output: { _, _, _ in },
            presented: { data, _, secHi, secLo, nsec, _, _, _, flags in
                guard let data else { return }
                let me = Unmanaged<FrameFeedback>.fromOpaque(data).takeUnretainedValue()
                me.state = .presented(seconds: FrameFeedback.seconds(secHi: secHi, secLo: secLo, nsec: nsec), flags: flags)
                me.destroy()
            },
            discarded: { data, _ in
                guard let data else { return }
                let me = Unmanaged<FrameFeedback>.fromOpaque(data).takeUnretainedValue()
                me.state = .discarded
                me.destroy()
            }))
        return l
    }()
}

/// Which screen time each answered commit gets, answered in commit order: a commit shown, its
/// own; a commit discarded (replaced by a later one before the compositor repainted), that of
/// the next commit shown, which carries its content. Pure.
struct FeedbackOrder {
    /// Discarded commits waiting for the next one shown.
    private(set) var replaced: [Int] = []

    /// Commit `serial` was answered: shown at `shownAt` (CLOCK_MONOTONIC seconds), or discarded
    /// (nil). The screen times now known: none for a discarded commit; for a shown one, its own
    /// and those of the discarded commits before it.
    mutating func answered(serial: Int, shownAt: Double?) -> [LateScreenTime] {
        guard let shownAt else {
            replaced.append(serial)
            return []
        }
        defer { replaced.removeAll() }
        return (replaced + [serial]).map { LateScreenTime(serial: $0, shownAt: shownAt) }
    }
}
