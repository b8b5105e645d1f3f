import Raster
#if canImport(Glibc)
import Glibc
#endif

/// What the framebuffer presenter needs of a KMS card: its mode's size and pixel format,
/// buffers to draw into, the ways to put one on the display, the flip events, and DRM master.
/// `DrmDevice` is the card itself; the unit tests drive `DrmPresenter` with a fake one, so its
/// answers to a busy, refused or silent display (EBUSY, EACCES, no flip event, no flips at all)
/// are tested without a kernel.
protocol KMSCard: AnyObject {
    /// The card's path (for messages).
    var path: String { get }
    /// The mode's size in pixels.
    var width: Int { get }
    var height: Int { get }
    /// The buffers' pixel format.
    var format: ScanoutFormat { get }
    /// What the log says of the display (card, mode, format, how it was had).
    var summary: String { get }

    /// A buffer of the mode's size in `format`, mapped, with a framebuffer id; black.
    func makeBuffer() throws(CardFailure) -> ScanoutBuffer
    /// Shows framebuffer `fb` with our mode on our connector (the first frame, and after master
    /// comes back).
    func setCRTC(fb: UInt32) throws(CardFailure)
    /// Queues `fb` for the next vblank by an atomic commit of the primary plane, with `clips`
    /// as its damage; a flip event follows.
    func commitAtomic(fb: UInt32, clips: [IntRect]) throws(CardFailure)
    /// Queues `fb` for the next vblank with `drmModePageFlip`; a flip event follows.
    func pageFlip(fb: UInt32) throws(CardFailure)
    /// Tells the display which rectangles of the shown buffer `fb` changed (DIRTYFB). Its
    /// failure says nothing the presenter can act on (ENOSYS: the driver scans out by itself).
    func markDirty(fb: UInt32, clips: [IntRect])
    /// Waits up to `milliseconds` for flip events and reads them. False when none came.
    func awaitFlipEvent(milliseconds: Int32) -> Bool
    /// The vblank time (CLOCK_MONOTONIC seconds) of the last flip event handled, if known.
    var lastFlipTime: Double? { get }
    /// Gives up DRM master (a VT switch away). False when the kernel refused.
    func dropMaster() -> Bool
    /// Takes DRM master back (or has it still). False while it is not ours.
    func takeMaster() -> Bool
    /// Puts the display back as it was found and lets go of the card. Once.
    func close()

    /// A usable display is connected (false: the page waits for one, nothing is drawn).
    var hasDisplay: Bool { get }
    /// Reads the connectors again after a hot-plug event: the output driven from now on
    /// (size, format and flip methods may change with it) and what that means.
    func rescan() -> DisplayRules.Change
    /// The flip methods to try for the output driven now, best first (nil: those the
    /// presenter was made with).
    var outputFlipOrder: [DrmRules.FlipMethod]? { get }
    /// The CRTC already shows our mode on our connector (the first page needs no modeset).
    func modeAlreadySet() -> Bool
    /// Shows `fb` on the primary plane without a modeset (atomic, no `ALLOW_MODESET`).
    func showWithoutModeset(fb: UInt32) throws(CardFailure)
}

extension KMSCard {
    var lastFlipTime: Double? { nil }
    var hasDisplay: Bool { true }
    var outputFlipOrder: [DrmRules.FlipMethod]? { nil }
    func rescan() -> DisplayRules.Change { .unchanged }
    func modeAlreadySet() -> Bool { false }
    func showWithoutModeset(fb: UInt32) throws(CardFailure) { throw CardFailure(step: "no-modeset commit", code: ENOTSUP) }
}

/// One buffer the display can scan out: mapped memory of `pitch` bytes a row, and its
/// framebuffer id.
protocol ScanoutBuffer: AnyObject {
    var fb: UInt32 { get }
    var memory: UnsafeMutableRawPointer { get }
    var pitch: Int { get }
    /// Removes the framebuffer and frees the memory. Once.
    func destroy()
}

/// A card call that failed: the step and the kernel's errno.
struct CardFailure: Error, Equatable {
    /// What was asked (`drmModePageFlip`, `DRM_IOCTL_MODE_CREATE_DUMB`, …).
    let step: String
    let code: Int32

    /// The display is not ours just now (master dropped: another VT or session has it).
    var lostMaster: Bool { code == EACCES || code == EPERM }
    /// The step and the errno's text, for a message.
    var message: String { "\(step): \(String(cString: strerror(code)))" }
}
