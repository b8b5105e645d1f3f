import Log
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
/// and the whole page is sent (`resume`). The host's `Seat` says when (`suspend`, `resume`).
///
/// A display that comes and goes (`displayChanged`, after the kernel's hot-plug event): none
/// connected, nothing is drawn (like a pause); one connected again, the mode is set and the
/// whole page sent; another mode, the buffers are made again for it (the loop lays the page out
/// for the new size). The very first page, when the CRTC already shows our mode (the console's
/// or a boot splash's), goes up by a plane commit without a modeset: no black frame.
///
/// Written against `KMSCard` (the real one is `DrmDevice`), with the flip as a `FlipStrategy`
/// (atomic, page flip, in place + DIRTYFB): a refused method gives way to the next one
/// (`FlipStrategies`); EBUSY waits for the pending flip once and retries; EACCES/EPERM pauses;
/// a flip event that never comes is waited for `flipWaitMilliseconds`, then taken as done.
final class DrmPresenter: FramePresenter {
    static let bufferCount = 3
    /// How long `present` waits for a flip event before giving up on it (several periods:
    /// a display that lost its vblank must not stop the kiosk).
    static let flipWaitMilliseconds: Int32 = 100

    let card: KMSCard
    private var buffers: [ScanoutBuffer] = []
    var chain: ScanoutChain
    private var strategies: FlipStrategies
    var modeSet = false
    /// A page was put on the display since the start (the no-modeset path is for the first).
    private var everShown = false
    /// How the first page went up: with or without a modeset (nil: not yet).
    private(set) var firstPageModeset: Bool?
    /// Master is not ours (VT switched away, session paused): frames are not drawn.
    private(set) var paused = false
    /// What the buffer being drawn got this frame (its damage clips).
    private var copied: [IntRect] = []
    private var rows = OutputRows()
    private(set) var closed = false
    private var warnedFlipTimeout = false
    private(set) var output: IntRect
    /// The pointer's position asked for (`setCursor`, output pixels), nil: no arrow.
    private var cursorAsked: Point?
    /// The arrow every buffer drawn from now on gets (its move is in the chain's damage).
    private var cursor: CursorPlacement?

    private var flip: FlipStrategy { strategies.current }
    var name: String { "drm (\(card.summary), \(flip.method.summary))" }
    var vsync: Bool { flip.flips }

    /// Makes the buffers for the first of `flipOrder` (`DrmRules.flipOrder`); nil with one
    /// message printed when the card cannot have them.
    init?(card: KMSCard, flipOrder: [DrmRules.FlipMethod]) {
        self.card = card
        strategies = FlipStrategies(flipOrder)
        output = IntRect(x: 0, y: 0, width: card.width, height: card.height)
        chain = ScanoutChain(count: 1, frontBuffer: true, bounds: output)
        formatDrawn = card.format
        guard makeBuffers() else { return nil }
    }

    /// The buffers and their chain for the card's mode and the current strategy (one drawn in
    /// place, or `bufferCount` flipped); false with one message when the card cannot have them.
    private func makeBuffers() -> Bool {
        output = IntRect(x: 0, y: 0, width: card.width, height: card.height)
        let inPlace = !strategies.current.flips
        chain = ScanoutChain(count: inPlace ? 1 : Self.bufferCount, frontBuffer: inPlace, bounds: output)
        do {
            for _ in 0..<chain.count { buffers.append(try card.makeBuffer()) }
        } catch {
            Log.error("\(card.path): \(error.message)")
            for b in buffers { b.destroy() }
            buffers.removeAll()
            return false
        }
        return true
    }

    /// Where the lines of a display lost or found go (set by the window; nil: straight to the log).
    var lines: RepeatingLines?

    /// Nothing to show on: master is not ours, or no display is connected.
    private var idle: Bool { paused || !card.hasDisplay }

    /// The connectors were read again (the kernel's hot-plug event): what changed. A display
    /// gone stops the drawing (one log line); one back (or another) has its mode set and the
    /// whole page sent with the next frame, with buffers made again when its size, format or
    /// flips differ. False in `ok` when the buffers cannot be made.
    func displayChanged() -> (change: DisplayRules.Change, ok: Bool) {
        guard !closed else { return (.unchanged, true) }
        let change = card.rescan()
        switch change {
        case .unchanged:
            return (change, true)
        case .lost:
            if !paused, chain.queued != nil { waitForFlip() }
            modeSet = false
            chain.invalidate(bounds: output)
            let line = "\(card.path): the display was disconnected; not drawing until one is connected"
            if let lines { lines.warning(.displayLost, line) } else { Log.warning(line) }
            return (change, true)
        case .found:
            if !paused, chain.queued != nil { waitForFlip() }
            modeSet = false
            let order = card.outputFlipOrder ?? [strategies.current.method]
            let remake = output.width != card.width || output.height != card.height || buffers.isEmpty
                || order.first != strategies.current.method || formatDrawn != card.format
            if remake {
                for b in buffers { b.destroy() }
                buffers.removeAll()
                strategies = FlipStrategies(order)
                formatDrawn = card.format
                guard makeBuffers() else { return (change, false) }
            }
            chain.invalidate(bounds: output)
            let line = "display connected: \(card.summary); the page follows"
            if let lines { lines.info(.displayFound, line) } else { Log.info(line) }
            return (change, true)
        }
    }
    /// The page and its rotation as last uploaded (to copy the whole page again after a modeset).
    private var lastPage: (frame: Pixmap, map: RotationMap)?
    /// The pixel format the buffers were made in.
    private var formatDrawn: ScanoutFormat

    deinit { close() }

    /// The card goes first (its CRTC back to the console's framebuffer), then our buffers.
    func close() {
        guard !closed else { return }
        closed = true
        card.close()
        for b in buffers { b.destroy() }
        buffers.removeAll()
    }

    func outputSize() -> (width: Int, height: Int) { (card.width, card.height) }

    /// The output size is the mode's: nothing to remake.
    func prepare(_ viewport: Viewport) -> Bool { !closed }

    func upload(_ rects: [IntRect], from frame: Pixmap, viewport: Viewport) -> Bool {
        guard !closed else { return false }
        let map = RotationMap(rotation: viewport.rotation, outputWidth: card.width, outputHeight: card.height)
        lastPage = (frame, map)
        let changed = rects.map { map.outputRect($0.intersection(frame.bounds)).intersection(output) }.filter { !$0.isEmpty }
        chain.changed(changed, bounds: output)
        let cursorMoved = placeCursor(viewport)
        if idle { return true }
        // Nothing changed (a cursor-only present whose arrow stayed on its pixel): no frame.
        if changed.isEmpty, !cursorMoved, chain.drawing == nil { return true }
        if chain.drawing == nil, chain.free == nil { waitForFlip() }
        guard let (index, missing) = chain.beginDrawing() else { return false }
        let b = buffers[index]
        for o in missing {
            Self.copy(o, map: map, from: frame, into: b.memory, pitch: b.pitch, format: card.format, rows: &rows)
        }
        CursorOverlay.draw(cursor, over: missing, bounds: output, into: b.memory, pitch: b.pitch, format: card.format)
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
        if idle { return true }
        guard chain.drawing != nil else { return true }
        let clips = BufferDamage.merged(copied, bounds: output)
        copied.removeAll(keepingCapacity: true)
        if !modeSet { return setMode() }
        if flip.flips, chain.queued != nil { waitForFlip() }
        guard let i = chain.finishDrawing() else { return false }
        return show(i, clips: clips)
    }

    /// The first frame after a start, a resume or a reconnect: shown with `drmModeSetCrtc`;
    /// the very first page, when the CRTC already shows our mode, by a plane commit without a
    /// modeset instead (drawn before anything is committed: no blank frame between the console
    /// or a boot splash and the page).
    private func setMode() -> Bool {
        guard let i = chain.finishDrawing() else { return false }
        let first = !everShown
        var modeset = true
        if first, card.modeAlreadySet() {
            do {
                try card.showWithoutModeset(fb: buffers[i].fb)
                modeset = false
            } catch {
                Log.info("\(card.path): the first page without a modeset was refused (\(error.message)); setting the mode")
            }
        }
        if modeset {
            do {
                try card.setCRTC(fb: buffers[i].fb)
            } catch {
                return failed(error)
            }
            copyWholePageAgain(into: i)
        }
        if first {
            firstPageModeset = modeset
            Log.info("\(card.path): first page shown \(modeset ? "with a modeset" : "without a modeset (the mode was already set)")")
        }
        everShown = true
        chain.flipped()
        modeSet = true
        return true
    }

    /// After a modeset, the whole page once more into the buffer now shown: bochs-drm showed
    /// black after the first modeset of a display that was off from boot (the buffer was moved
    /// into video memory when the mode was set, and what had been copied into it before did not
    /// show), while a page copied after the modeset did (Tests/vm/deb_boot_scenarios.py
    /// `kmsdrm-display-off`; `Tests/vm` with `video=Virtual-1:d` showed the same). One
    /// whole-page copy per modeset.
    private func copyWholePageAgain(into i: Int) {
        guard let (frame, map) = lastPage, frame.width * frame.height > 0 else { return }
        let b = buffers[i]
        Self.copy(output, map: map, from: frame, into: b.memory, pitch: b.pitch, format: card.format, rows: &rows)
        CursorOverlay.draw(cursor, over: [output], bounds: output, into: b.memory, pitch: b.pitch, format: card.format)
        // No DIRTYFB: the same pixels as those the modeset already sent (a driver that copies
        // the buffer to its display, like virtio-gpu, took them with the commit).
    }

    /// Hands buffer `i` (just finished) to the display with the current strategy; a busy
    /// display is waited for once, a refused strategy gives way to the next.
    private func show(_ i: Int, clips: [IntRect]) -> Bool {
        let fb = buffers[i].fb
        while true {
            var failure: CardFailure
            do {
                try flip.show(fb: fb, clips: clips, on: card)
                return true
            } catch {
                failure = error
            }
            if failure.lostMaster { return pause() }
            // EBUSY: a flip whose event we missed (taken as done after a wait that timed out)
            // is still pending; wait for its event once and retry. Ours stays the queued one.
            if failure.code == EBUSY, flip.flips {
                awaitFlipEvent()
                do {
                    try flip.show(fb: fb, clips: clips, on: card)
                    return true
                } catch {
                    failure = error
                }
            }
            // The driver does not take this strategy: the next one, for good.
            let refused = flip.method
            guard let next = strategies.advance() else { return failed(CardFailure(step: "flip", code: failure.code)) }
            Log.warning("DRM \(refused.summary) refused (\(String(cString: strerror(failure.code)))); using \(next.method.summary)")
            if !next.flips { return drawInPlace(keeping: i) }
        }
    }

    /// From flips to one buffer, shown and drawn in place: the one just drawn (the whole page)
    /// is kept and set on the CRTC, the others go.
    private func drawInPlace(keeping i: Int) -> Bool {
        let keep = buffers[i]
        for (j, other) in buffers.enumerated() where j != i { other.destroy() }
        buffers = [keep]
        chain = ScanoutChain(count: 1, frontBuffer: true, bounds: output)
        _ = chain.beginDrawing()
        _ = chain.finishDrawing()
        do {
            try card.setCRTC(fb: keep.fb)
        } catch {
            return failed(error)
        }
        card.markDirty(fb: keep.fb, clips: [output])
        return true
    }

    /// A failed step: the message, and false (the caller resends the whole page next frame).
    /// Master gone: a pause instead.
    private func failed(_ failure: CardFailure) -> Bool {
        if failure.lostMaster { return pause() }
        Log.warning("\(card.path): \(failure.step) failed: \(String(cString: strerror(failure.code)))")
        chain.invalidate(bounds: output)
        return false
    }

    /// Master is gone: stop drawing until `resume`.
    func pause() -> Bool {
        paused = true
        chain.invalidate(bounds: output)
        return true
    }

    /// Master taken back (or to be checked): the mode is set again with the next frame, which
    /// sends the whole page. False while master is still not ours.
    func resume() -> Bool {
        guard !closed, card.takeMaster() else { return false }
        paused = false
        modeSet = false
        chain.invalidate(bounds: output)
        return true
    }

    /// What the seat says of the display (`Seat.service`): a pause lets go of it, a resume
    /// takes it back. True when the whole page must be sent again.
    func handle(_ event: SeatEvent) -> Bool {
        switch event {
        case .pause:
            suspend()
            return false
        case .resume:
            _ = resume()
            return true
        }
    }

    /// Master given up for a VT switch away (after the queued flip, if any, completed).
    func suspend() {
        guard !closed, !paused else { return }
        if chain.queued != nil { waitForFlip() }
        _ = card.dropMaster()
        _ = pause()
    }

    /// How a frame's time on screen is known: the flip event's vblank, or DIRTYFB's return.
    var screenStamp: LatencyLedger.ScreenStamp { flip.flips ? .flip : .submitted }

    /// Completes the flip in flight (waits for its event): the vblank it was shown at
    /// (CLOCK_MONOTONIC seconds) when the event said; nil when none was in flight or no time came.
    func finishFlip() -> Double? {
        guard !closed, !idle, flip.flips, chain.queued != nil else { return nil }
        let before = card.lastFlipTime
        waitForFlip()
        let after = card.lastFlipTime
        return after != before ? after : nil
    }

    /// Waits for the queued flip's event (up to `flipWaitMilliseconds`); after that the flip is
    /// taken as done, so a display without events cannot stop the kiosk.
    func waitForFlip() {
        guard chain.queued != nil else { return }
        awaitFlipEvent()
        chain.flipped()
    }

    /// Waits up to `flipWaitMilliseconds` for a flip event; the first time none comes, one
    /// warning.
    private func awaitFlipEvent() {
        if !card.awaitFlipEvent(milliseconds: Self.flipWaitMilliseconds), !warnedFlipTimeout {
            warnedFlipTimeout = true
            Log.warning("\(card.path): no flip event within \(Self.flipWaitMilliseconds) ms; not waiting for it")
        }
    }
}
