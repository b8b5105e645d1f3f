import CDRM
import KioskEngine
import KioskSupport
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// KMS/DRM without GL: the page's dirty rectangles go straight into mapped dumb buffers, which
/// are flipped onto the display on vblank. SDL 2.26's kmsdrm backend has no window framebuffer,
/// so its only way is a GL texture — on a display Mesa has no driver for (QEMU's bochs-drm,
/// simpledrm, the small SPI panels of tinydrm) that is llvmpipe drawing the whole screen every
/// frame. Here a frame is a copy of what changed, converted to the output's format (XRGB8888
/// or RGB565) and rotated through our own rows (`OutputRows`), then one flip.
///
/// Buffers: three, each knowing what it missed (`ScanoutChain`, on `BufferDamage`): one shown,
/// one queued for the next vblank, one drawn. The flip: an atomic commit of the primary plane
/// with `FB_DAMAGE_CLIPS` where the driver takes atomic, else `drmModePageFlip`; its event on
/// the DRM fd paces the frames (`vsync`: `present` waits for the previous flip before queuing
/// the next, as a vsync'd GL swap does; nothing polls, so idle costs nothing). A driver that
/// refuses flips gets one buffer drawn in place and `DRM_IOCTL_MODE_DIRTYFB` with the changed
/// rectangles (panels without vblank). The first frame is set with `drmModeSetCrtc`.
///
/// The pointer's arrow (a mouse on KMS/DRM) is drawn into each buffer over the page
/// (`CursorOverlay`): its moves are damage like the page's, so every buffer loses the old arrow
/// and gets the new one, and a move alone presents a frame of those two rectangles.
///
/// While the display is not ours (a VT switch, logind paused the session: master dropped) the
/// presenter draws nothing and reports success; when master comes back the mode is set again
/// and the whole page is sent (`resume`).
final class DrmPresenter: FramePresenter {
    static let bufferCount = 3
    /// How long `present` waits for a flip event before giving up on it (several periods:
    /// a display that lost its vblank must not stop the kiosk).
    static let flipWaitMilliseconds: Int32 = 100

    let device: DrmDevice
    private var buffers: [DumbBuffer] = []
    private var chain: ScanoutChain
    private var method: DrmRules.FlipMethod
    private var methods: [DrmRules.FlipMethod]
    private var modeSet = false
    /// Master is not ours (VT switched away, session paused): frames are not drawn.
    private(set) var paused = false
    /// What the buffer being drawn got this frame (its damage clips).
    private var copied: [IntRect] = []
    private var rows = OutputRows()
    private var closed = false
    private var warnedFlipTimeout = false
    private let output: IntRect
    /// The pointer's position asked for (`setCursor`, output pixels), nil: no arrow.
    private var cursorAsked: Point?
    /// The arrow every buffer drawn from now on gets (its move is in the chain's damage).
    private var cursor: CursorPlacement?

    var name: String { "drm (\(device.summary), \(method.summary))" }
    var vsync: Bool { method != .dirty }

    /// Makes the buffers; nil with one message printed when the device cannot have them.
    init?(device: DrmDevice) {
        self.device = device
        methods = device.flipOrder
        method = methods[0]
        output = IntRect(x: 0, y: 0, width: device.width, height: device.height)
        chain = ScanoutChain(count: method == .dirty ? 1 : Self.bufferCount, frontBuffer: method == .dirty, bounds: output)
        for _ in 0..<chain.count {
            switch DumbBuffer.make(fd: device.fd, width: device.width, height: device.height, format: device.format) {
            case .success(let b): buffers.append(b)
            case .failure(let e):
                Diagnostics.printError("darkmode-kiosk: \(device.path): \(e.message)")
                for b in buffers { b.destroy() }
                return nil
            }
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        // Our framebuffers go after the console's is back on the CRTC.
        device.close()
        for b in buffers { b.destroy() }
        buffers.removeAll()
        LogindDevice.release()
    }

    func outputSize() -> (width: Int, height: Int) { (device.width, device.height) }

    /// The output size is the mode's: nothing to remake.
    func prepare(_ viewport: Viewport) -> Bool { !closed }

    func upload(_ rects: [IntRect], from frame: Pixmap, viewport: Viewport) -> Bool {
        guard !closed else { return false }
        let map = RotationMap(rotation: viewport.rotation, outputWidth: device.width, outputHeight: device.height)
        let changed = rects.map { map.outputRect($0.intersection(frame.bounds)).intersection(output) }.filter { !$0.isEmpty }
        chain.changed(changed, bounds: output)
        let cursorMoved = placeCursor(viewport)
        if paused { return true }
        // Nothing changed (a cursor-only present whose arrow stayed on its pixel): no frame.
        if changed.isEmpty, !cursorMoved, chain.drawing == nil { return true }
        if chain.drawing == nil, chain.free == nil { waitForFlip() }
        guard let (index, missing) = chain.beginDrawing() else { return false }
        let b = buffers[index]
        for o in missing {
            Self.copy(o, map: map, from: frame, into: b.memory, pitch: b.pitch, format: device.format, rows: &rows)
        }
        CursorOverlay.draw(cursor, over: missing, bounds: output, into: b.memory, pitch: b.pitch, format: device.format)
        copied += missing
        return true
    }

    func setCursor(_ outputPixel: Point?) { cursorAsked = outputPixel }

    /// Takes the asked cursor position for this frame: when the arrow moves (or shows, or
    /// hides), every buffer misses its old and new rectangles, so the one drawn next copies the
    /// page back under the old arrow and draws the new one (`CursorOverlay`), and the flip's
    /// damage clips hold both. True when it moved.
    private func placeCursor(_ viewport: Viewport) -> Bool {
        let next = cursorAsked.map { CursorPlacement(hotSpot: $0, viewport: viewport) }
        let damage = CursorPlacement.damage(from: cursor, to: next, bounds: output)
        cursor = next
        chain.changed(damage, bounds: output)
        return !damage.isEmpty
    }

    /// Copies output rectangle `o` of the page (through `map`) into a buffer of `format` at
    /// `base` (`pitch` bytes a row); a large rectangle streams past the caches and is fenced.
    static func copy(_ o: IntRect, map: RotationMap, from frame: Pixmap, into base: UnsafeMutableRawPointer,
                     pitch: Int, format: ScanoutFormat, rows: inout OutputRows) {
        let streamed = o.area >= StreamingCopy.minPixels
        let bpp = format.bytesPerPixel
        rows.forEach(o, map: map, frame: frame) { y, src in
            format.storeRow(base + (o.minY + y) * pitch + o.minX * bpp, from: src, count: o.width, streamed: streamed)
        }
        if streamed { StreamingCopy.fence() }
    }

    func present(_ viewport: Viewport) -> Bool {
        guard !closed else { return false }
        if paused { return true }
        guard chain.drawing != nil else { return true }
        let clips = BufferDamage.merged(copied, bounds: output)
        copied.removeAll(keepingCapacity: true)
        if !modeSet {
            guard let i = chain.finishDrawing() else { return false }
            guard device.setCRTC(fb: buffers[i].fb) else { return failed("drmModeSetCrtc") }
            chain.flipped()
            modeSet = true
            return true
        }
        if method != .dirty, chain.queued != nil { waitForFlip() }
        guard let i = chain.finishDrawing() else { return false }
        let b = buffers[i]
        while true {
            switch method {
            case .atomic:
                if atomicFlip(b.fb, clips: clips) { return true }
            case .legacy:
                if drmModePageFlip(device.fd, device.crtcID, b.fb, CDRM_MODE_PAGE_FLIP_EVENT, nil) == 0 { return true }
            case .dirty:
                chain.flipped()
                dirty(b.fb, clips: clips)
                return true
            }
            let e = errno
            if e == EACCES || e == EPERM { return pause() }
            // EBUSY: a flip whose event we missed is still pending; wait once and retry.
            if e == EBUSY, method != .dirty {
                waitForFlip(force: true)
                if method == .legacy, drmModePageFlip(device.fd, device.crtcID, b.fb, CDRM_MODE_PAGE_FLIP_EVENT, nil) == 0 { return true }
                if method == .atomic, atomicFlip(b.fb, clips: clips) { return true }
            }
            // The driver does not take this method: the next one, for good.
            guard let next = fallback(after: method, error: e) else { return failed("flip") }
            method = next
            if next == .dirty {
                // One buffer, shown and drawn in place: the one just drawn (the full page).
                let keep = buffers[i]
                for (j, other) in buffers.enumerated() where j != i { other.destroy() }
                buffers = [keep]
                chain = ScanoutChain(count: 1, frontBuffer: true, bounds: output)
                _ = chain.beginDrawing()
                _ = chain.finishDrawing()
                guard device.setCRTC(fb: keep.fb) else { return failed("drmModeSetCrtc") }
                dirty(keep.fb, clips: [output])
                return true
            }
        }
    }

    private func fallback(after failedMethod: DrmRules.FlipMethod, error: Int32) -> DrmRules.FlipMethod? {
        guard let i = methods.firstIndex(of: failedMethod), i + 1 < methods.count else { return nil }
        Diagnostics.printError("darkmode-kiosk: DRM \(failedMethod.summary) refused (\(String(cString: strerror(error)))); using \(methods[i + 1].summary)",
                               priority: .warning)
        return methods[i + 1]
    }

    /// A failed step: the message, and false (the caller resends the whole page next frame).
    private func failed(_ step: String) -> Bool {
        let e = errno
        if e == EACCES || e == EPERM { return pause() }
        Diagnostics.printError("darkmode-kiosk: \(device.path): \(step) failed: \(String(cString: strerror(e)))", priority: .warning)
        chain.invalidate(bounds: output)
        return false
    }

    /// Master is gone: stop drawing until `resume`.
    private func pause() -> Bool {
        paused = true
        chain.invalidate(bounds: output)
        return true
    }

    /// Master taken back (or to be checked): the mode is set again with the next frame, which
    /// sends the whole page. False while master is still not ours.
    func resume() -> Bool {
        guard !closed, device.takeMaster() else { return false }
        paused = false
        modeSet = false
        chain.invalidate(bounds: output)
        return true
    }

    /// Master given up for a VT switch away.
    func suspend() {
        guard !closed, !paused else { return }
        if chain.queued != nil { waitForFlip() }
        _ = device.dropMaster()
        _ = pause()
    }

    // MARK: Flips

    /// Waits for the queued flip's event (up to `flipWaitMilliseconds`); after that the flip is
    /// taken as done (one warning), so a display without events cannot stop the kiosk.
    private func waitForFlip(force: Bool = false) {
        guard chain.queued != nil || force else { return }
        var left = Self.flipWaitMilliseconds
        while chain.queued != nil || force {
            var p = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            let start = Clock.monotonic()
            let n = poll(&p, 1, left)
            if n > 0 {
                _ = cdrm_handle_events(device.fd) { _, _, _, _, _ in DrmPresenter.flipEvents += 1 }
                chain.flipped()
                return
            }
            if n < 0, errno == EINTR {
                left -= Int32((Clock.monotonic() - start) * 1000)
                if left > 0 { continue }
            }
            if !warnedFlipTimeout {
                warnedFlipTimeout = true
                Diagnostics.printError("darkmode-kiosk: \(device.path): no flip event within \(Self.flipWaitMilliseconds) ms; not waiting for it",
                                       priority: .warning)
            }
            chain.flipped()
            return
        }
    }

    /// Flip events read (for the log's counts; one thread).
    nonisolated(unsafe) static var flipEvents = 0

    private func atomicFlip(_ fb: UInt32, clips: [IntRect]) -> Bool {
        guard let plane = device.plane, let req = drmModeAtomicAlloc() else { return false }
        defer { drmModeAtomicFree(req) }
        _ = drmModeAtomicAddProperty(req, plane.id, plane.fbID, UInt64(fb))
        _ = drmModeAtomicAddProperty(req, plane.id, plane.crtcID, UInt64(device.crtcID))
        var blob: UInt32 = 0
        if let damage = plane.damageClips, !clips.isEmpty {
            var rects = clips.map { drm_mode_rect(x1: Int32($0.minX), y1: Int32($0.minY), x2: Int32($0.maxX), y2: Int32($0.maxY)) }
            if drmModeCreatePropertyBlob(device.fd, &rects, rects.count * MemoryLayout<drm_mode_rect>.stride, &blob) == 0 {
                _ = drmModeAtomicAddProperty(req, plane.id, damage, UInt64(blob))
            }
        }
        let ok = drmModeAtomicCommit(device.fd, req, CDRM_MODE_ATOMIC_NONBLOCK | CDRM_MODE_PAGE_FLIP_EVENT, nil) == 0
        let e = errno
        // The commit holds its own reference to the blob.
        if blob != 0 { _ = drmModeDestroyPropertyBlob(device.fd, blob) }
        errno = e
        return ok
    }

    /// Tells a display without vblank which rectangles of the shown buffer changed. ENOSYS: the
    /// driver scans the buffer out itself and needs no telling.
    private func dirty(_ fb: UInt32, clips: [IntRect]) {
        guard !clips.isEmpty else { return }
        var c = clips.map { drm_clip_rect(x1: UInt16(clamping: $0.minX), y1: UInt16(clamping: $0.minY),
                                          x2: UInt16(clamping: $0.maxX), y2: UInt16(clamping: $0.maxY)) }
        _ = drmModeDirtyFB(device.fd, fb, &c, UInt32(c.count))
    }
}
