import KioskEngine
import Raster

/// The framebuffer presenter's buffers as the display uses them (pure bookkeeping, no DRM):
/// which buffer the display shows, which one waits for the next vblank (a flip queued, its
/// event not yet read), and which one the next frame is drawn into. Each buffer also knows
/// what it has missed since it was last drawn (`BufferDamage`, shared with the Wayland shm
/// presenter): the page frame always holds the whole current page, so copying a buffer's list
/// from it brings the buffer up to date, whatever order the flips completed in.
///
/// Two ways to show a frame:
/// - flipping (`frontBuffer` false): a frame is drawn into a buffer neither shown nor queued,
///   then queued; its flip event makes it the shown one. With three buffers one is always
///   free while a flip is queued; with two, the next frame waits for the event.
/// - drawing in place (`frontBuffer` true: panels without vblank, `DRM_IOCTL_MODE_DIRTYFB`):
///   one buffer, always shown, drawn directly; the display is told which rectangles changed.
struct ScanoutChain {
    let count: Int
    let frontBuffer: Bool
    private(set) var shown: Int?
    private(set) var queued: Int?
    /// The buffer the current frame is drawn into (chosen at its first upload).
    private(set) var drawing: Int?
    private var damage = BufferDamage()

    init(count: Int, frontBuffer: Bool, bounds: IntRect) {
        precondition(count >= 1 && (frontBuffer || count >= 2), "flipping needs two buffers")
        self.count = frontBuffer ? 1 : count
        self.frontBuffer = frontBuffer
        for _ in 0..<self.count { _ = damage.addBuffer(bounds: bounds) }
    }

    /// A buffer the next frame may be drawn into: in place, the one buffer; flipping, the
    /// lowest-numbered buffer neither shown nor queued (nil: wait for the queued flip).
    var free: Int? {
        if frontBuffer { return 0 }
        return (0..<count).first { $0 != shown && $0 != queued }
    }

    /// Output rectangles changed in the page: every buffer misses them.
    mutating func changed(_ rects: [IntRect], bounds: IntRect) { damage.changed(rects, bounds: bounds) }

    /// Starts (or continues) the frame in `free`'s buffer. Returns the buffer and the rectangles
    /// it must copy from the page (cleared: it will have them), or nil when no buffer is free.
    mutating func beginDrawing() -> (index: Int, rects: [IntRect])? {
        if drawing == nil { drawing = free }
        guard let i = drawing else { return nil }
        return (i, damage.take(i))
    }

    /// The frame drawn is handed to the display: flipping, it is queued (a flip already queued
    /// must have completed: `flipped()` first); in place, it is what is shown. Returns its index.
    mutating func finishDrawing() -> Int? {
        guard let i = drawing else { return nil }
        drawing = nil
        if frontBuffer {
            shown = i
        } else {
            precondition(queued == nil, "a flip is already queued")
            queued = i
        }
        return i
    }

    /// The queued flip's event arrived: its buffer is on screen, the one before is free.
    mutating func flipped() {
        guard let q = queued else { return }
        shown = q
        queued = nil
    }

    /// Whatever was queued or drawn is gone (the display was lost and set again, or the flip
    /// was refused): every buffer misses everything, nothing is queued or drawn. `shown` is
    /// kept: that buffer may still be scanned out.
    mutating func invalidate(bounds: IntRect) {
        queued = nil
        drawing = nil
        damage.changed([bounds], bounds: bounds)
    }
}
