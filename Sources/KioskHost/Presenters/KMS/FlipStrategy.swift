import Raster
#if canImport(Glibc)
import Glibc
#endif

/// One way a drawn buffer reaches the screen (`DrmRules.FlipMethod`), against a `KMSCard`. The
/// presenter holds the methods to try, best first (`FlipStrategies`); one that the driver
/// refuses gives way to the next, for good.
protocol FlipStrategy {
    var method: DrmRules.FlipMethod { get }
    /// True when a shown frame is queued for the vblank and completed by a flip event (the
    /// presenter then keeps three buffers and waits for the event before queuing another);
    /// false when the one buffer is drawn in place and shown at once.
    var flips: Bool { get }
    /// Hands buffer `fb`, changed in `clips` (output pixels), to the display.
    func show(fb: UInt32, clips: [IntRect], on card: KMSCard) throws(CardFailure)
}

/// An atomic commit of the primary plane with `FB_DAMAGE_CLIPS`, on vblank.
struct AtomicFlip: FlipStrategy {
    var method: DrmRules.FlipMethod { .atomic }
    var flips: Bool { true }
    func show(fb: UInt32, clips: [IntRect], on card: KMSCard) throws(CardFailure) {
        try card.commitAtomic(fb: fb, clips: clips)
    }
}

/// `drmModePageFlip`, on vblank.
struct LegacyPageFlip: FlipStrategy {
    var method: DrmRules.FlipMethod { .legacy }
    var flips: Bool { true }
    func show(fb: UInt32, clips: [IntRect], on card: KMSCard) throws(CardFailure) {
        try card.pageFlip(fb: fb)
    }
}

/// One buffer, always shown, drawn in place; `DRM_IOCTL_MODE_DIRTYFB` with the changed
/// rectangles (panels without vblank). Never refused: the last of every order.
struct InPlaceDirty: FlipStrategy {
    var method: DrmRules.FlipMethod { .dirty }
    var flips: Bool { false }
    func show(fb: UInt32, clips: [IntRect], on card: KMSCard) throws(CardFailure) {
        guard !clips.isEmpty else { return }
        card.markDirty(fb: fb, clips: clips)
    }
}

/// The strategies to try, best first, and which one is in use.
struct FlipStrategies {
    private let order: [FlipStrategy]
    private var index = 0

    /// Strategies for `methods` (`DrmRules.flipOrder`; not empty).
    init(_ methods: [DrmRules.FlipMethod]) {
        precondition(!methods.isEmpty, "no flip method to try")
        order = methods.map(Self.strategy)
    }

    static func strategy(_ method: DrmRules.FlipMethod) -> FlipStrategy {
        switch method {
        case .atomic: return AtomicFlip()
        case .legacy: return LegacyPageFlip()
        case .dirty: return InPlaceDirty()
        }
    }

    /// The strategy in use.
    var current: FlipStrategy { order[index] }

    /// Gives up the current strategy for the next one; nil (and the current kept) when it was
    /// the last.
    mutating func advance() -> FlipStrategy? {
        guard index + 1 < order.count else { return nil }
        index += 1
        return order[index]
    }
}
