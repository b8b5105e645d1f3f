import Log
import CSDL2
import CWayland
import KioskEngine
import KioskSupport
import Raster
#if canImport(Glibc)
import Glibc
#endif
import Threads

/// Wayland without GL: the page goes into shared-memory buffers (`wl_shm`) attached to the
/// window's own `wl_surface` (SDL's, from `SDL_GetWindowWMInfo`). SDL 2.26 has no window
/// framebuffer on Wayland, so its window surface and its software renderer would both go
/// through a GL texture — on a board without a GPU that is llvmpipe: a GL context, shader
/// compiles and a full-screen draw per frame (~100–300 ms before the first frame on the
/// headless cage test). Here a frame is a copy of the dirty rectangles into a free buffer,
/// `wl_surface.damage_buffer` for them, attach and commit.
///
/// Buffers: up to `maxBuffers`, each its own memfd; the compositor holds a committed buffer
/// until it sends `release`, so each buffer remembers the output rectangles it has missed
/// since it was last drawn (the frame always holds the whole page, so they are copied from
/// it). Events of our objects (shm formats, buffer releases) go to a private event queue,
/// dispatched here; SDL's own reads of the connection fill it. Not paced by the compositor
/// (`vsync` false): the frame pacer keeps to the refresh rate.
///
/// When the compositor offers `wp_presentation` (weston, sway; not cage 0.1.4), each commit asks
/// when it was shown; the answers (a frame or two later) are collected without waiting
/// (`lateScreenTimes`), and the loop gives the frames' latency samples the compositor's time
/// (`compositor`) in place of the commit's return. Waiting for the answer before the next frame
/// would halve the frame rate: weston shows a commit ~28 ms after it (measured: its repaint,
/// then the next vblank).
///
/// What stays: SDL 2.26's Wayland backend makes every window an EGL window, so
/// `SDL_CreateWindow` still initialises EGL (~25 ms of CPU with llvmpipe) although nothing is
/// drawn with it; and SDL adds whole-surface damage at each frame callback, so the compositor
/// may repaint more than our damage says (our side still copies only the dirty rectangles).
final class ShmPresenter: FramePresenter {
    let name: String
    let vsync = false
    static let maxBuffers = 3
    /// How long `upload` waits for the compositor to release a buffer when all are busy (about
    /// a refresh period); after that the frame is dropped and the next one sends the whole page.
    static let releaseWaitMilliseconds: Int32 = 20
    /// Commits whose feedback is awaited at most (older ones are given up, counted unanswered:
    /// a compositor need not show a hidden surface, and may answer late or never).
    static let maxAwaitedFeedback = 16

    private let window: OpaquePointer
    private let display: OpaquePointer
    private let surface: OpaquePointer
    private let queue: OpaquePointer
    /// Kept alive: the wl_shm listener's data (late format events).
    private let globals: ShmGlobals
    private let shm: OpaquePointer
    /// The wl_shm format and whether rows are copied as they are (R, G, B, X in memory) or
    /// with red and blue swapped (XRGB8888, the one format every compositor has).
    private let format: UInt32
    private let swapsRedBlue: Bool
    private let damagesBuffer: Bool
    private var buffers: [ShmBuffer] = []
    /// What each buffer (same index) misses, and what changed since the last commit.
    private var missing = BufferDamage()
    private var bufferSize = (width: 0, height: 0)
    /// The buffer drawn for the next commit (index into `buffers`).
    private var drawn: Int?
    private var damage: [IntRect] = []
    private var rows = OutputRows()
    private(set) var presentSerial = 0
    var learnsScreenTimesLater: Bool { !closed && globals.presentation != nil }
    /// The commits whose feedback has not come yet, oldest first: serial, commit time
    /// (CLOCK_MONOTONIC seconds), feedback.
    private var awaited: [(serial: Int, committedAt: Double, feedback: FrameFeedback)] = []
    /// Commits the compositor said it showed, discarded, or did not answer for.
    private(set) var feedbackCounts = (presented: 0, discarded: 0, unanswered: 0)
    /// Every `wp_presentation_feedback.kind` flag the shown commits carried.
    private var flagsSeen: UInt32 = 0
    /// Discarded commits waiting for the next commit shown (which shows their content).
    private var order = FeedbackOrder()
    /// How long after its commit the compositor showed each commit it answered for
    /// (milliseconds, the first 100 000).
    private var shownAfterCommit: [Double] = []

    /// Nil when the window is not on Wayland or the compositor offers no `wl_shm`.
    init?(window: OpaquePointer) {
        var rawDisplay: UnsafeMutableRawPointer?, rawSurface: UnsafeMutableRawPointer?
        guard CSDL2_WaylandHandles(window, &rawDisplay, &rawSurface) != 0,
              let rawDisplay, let rawSurface else { return nil }
        let display = OpaquePointer(rawDisplay)
        self.window = window
        self.display = display
        surface = OpaquePointer(rawSurface)
        guard let queue = wl_display_create_queue(display) else { return nil }
        self.queue = queue
        // The registry (and everything made from it) on our queue, through a display wrapper.
        let globals = ShmGlobals()
        if let wrapper = wl_proxy_create_wrapper(rawDisplay) {
            wl_proxy_set_queue(OpaquePointer(wrapper), queue)
            if let registry = wl_display_get_registry(OpaquePointer(wrapper)) {
                wl_registry_add_listener(registry, ShmGlobals.registryListener, Unmanaged.passUnretained(globals).toOpaque())
                // First the globals (binding wl_shm and wp_presentation), then the formats and
                // the presentation clock they announce.
                _ = wl_display_roundtrip_queue(display, queue)
                if globals.shm != nil { _ = wl_display_roundtrip_queue(display, queue) }
                wl_registry_destroy(registry)
            }
            wl_proxy_wrapper_destroy(wrapper)
        }
        guard let shm = globals.shm else {
            globals.presentation?.destroy()
            wl_event_queue_destroy(queue)
            return nil
        }
        self.globals = globals
        self.shm = shm
        swapsRedBlue = !globals.formats.contains(WL_SHM_FORMAT_XBGR8888.rawValue)
        format = swapsRedBlue ? WL_SHM_FORMAT_XRGB8888.rawValue : WL_SHM_FORMAT_XBGR8888.rawValue
        // damage_buffer (buffer pixels) came with wl_surface version 4.
        damagesBuffer = wl_proxy_get_version(OpaquePointer(rawSurface)) >= 4
        name = "wayland shm (" + (swapsRedBlue ? "XRGB8888" : "XBGR8888") + ")"
            + (globals.presentation != nil ? ", presentation feedback" : "")
    }

    deinit { close() }

    private var closed = false

    /// Destroys the buffers and our objects (before SDL destroys the surface and disconnects).
    func close() {
        guard !closed else { return }
        closed = true
        for b in buffers { b.destroy() }
        buffers.removeAll()
        missing = BufferDamage()
        drawn = nil
        for a in awaited { a.feedback.destroy() }
        awaited.removeAll()
        globals.presentation?.destroy()
        wl_proxy_destroy(shm)
        _ = wl_display_flush(display)
        wl_event_queue_destroy(queue)
    }

    func outputSize() -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetWindowSizeInPixels(window, &w, &h)
        return (Int(w), Int(h))
    }

    func prepare(_ viewport: Viewport) -> Bool {
        resize(to: (viewport.outputWidth, viewport.outputHeight))
        return true
    }

    /// New buffers for a new output size (the old ones go, busy or not: the compositor keeps
    /// what it shows until the next commit).
    private func resize(to size: (width: Int, height: Int)) {
        guard size != bufferSize else { return }
        for b in buffers { b.destroy() }
        buffers.removeAll()
        missing = BufferDamage()
        drawn = nil
        // The compositor shows a buffer of the old size: the next commit damages everything.
        damage = [IntRect(x: 0, y: 0, width: size.width, height: size.height)]
        bufferSize = size
    }

    func upload(_ rects: [IntRect], from frame: Pixmap, viewport: Viewport) -> Bool {
        guard !closed else { return false }
        resize(to: (viewport.outputWidth, viewport.outputHeight))
        let (ow, oh) = bufferSize
        let output = IntRect(x: 0, y: 0, width: ow, height: oh)
        let map = RotationMap(rotation: viewport.rotation, outputWidth: ow, outputHeight: oh)
        let changed = rects.map { map.outputRect($0.intersection(frame.bounds)).intersection(output) }.filter { !$0.isEmpty }
        // Every buffer misses what changed (the one drawn now catches up below).
        missing.changed(changed, bounds: output)
        damage = BufferDamage.merged(damage + changed, bounds: output)
        if drawn == nil { drawn = freeBuffer(bounds: output) }
        guard let index = drawn else { return false }
        let b = buffers[index]
        let base = b.memory.assumingMemoryBound(to: UInt32.self)
        for o in missing.take(index) {
            Self.copy(o, map: map, from: frame, into: base, pitch: b.stride / 4, swapsRedBlue: swapsRedBlue, rows: &rows)
        }
        return true
    }

    func present(_ viewport: Viewport) -> Bool {
        guard !closed, let index = drawn else { return false }
        let b = buffers[index]
        wl_surface_attach(surface, b.buffer, 0, 0)
        if damagesBuffer {
            for r in damage { wl_surface_damage_buffer(surface, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height)) }
        } else {
            wl_surface_damage(surface, 0, 0, Int32.max, Int32.max)
        }
        presentSerial += 1
        if let presentation = globals.presentation, let f = presentation.feedback(for: surface) {
            if awaited.count >= Self.maxAwaitedFeedback {
                awaited.removeFirst().feedback.destroy()
                feedbackCounts.unanswered += 1
            }
            awaited.append((presentSerial, MonotonicClock.seconds(), f))
        }
        wl_surface_commit(surface)
        b.busy = true
        drawn = nil
        damage.removeAll(keepingCapacity: true)
        // EAGAIN: the rest goes with SDL's next flush. Any other failure is a lost display,
        // which SDL reports as SDL_QUIT.
        return wl_display_flush(display) >= 0 || errno == EAGAIN
    }

    /// The commits the compositor has answered for since the last call, in commit order, with
    /// the time each reached the screen: a commit it showed, its own time; a commit it discarded
    /// (a later one replaced it before a repaint), the time of the next commit shown, which
    /// carries its content. Stops at the first commit not answered yet. Reads nothing from the
    /// connection (SDL's pump does, filling our queue).
    func lateScreenTimes() -> [LateScreenTime] {
        guard !closed, !awaited.isEmpty, let presentation = globals.presentation else { return [] }
        _ = wl_display_dispatch_queue_pending(display, queue)
        var out: [LateScreenTime] = []
        var answered = 0
        for a in awaited {
            if case .pending = a.feedback.state { break }
            answered += 1
            a.feedback.destroy()
            guard case .presented(let seconds, let flags) = a.feedback.state else {
                feedbackCounts.discarded += 1
                out += order.answered(serial: a.serial, shownAt: nil)
                continue
            }
            feedbackCounts.presented += 1
            flagsSeen |= flags
            // Nil only if the compositor never named its clock: then the commit is treated as
            // a discarded one (the next commit shown gives it its time).
            let shown = presentation.monotonicSeconds(seconds)
            if let shown, shownAfterCommit.count < 100_000 { shownAfterCommit.append((shown - a.committedAt) * 1000) }
            out += order.answered(serial: a.serial, shownAt: shown)
        }
        awaited.removeFirst(answered)
        return out
    }

    var timingLines: [String] {
        guard globals.presentation != nil else { return [] }
        let c = feedbackCounts
        var line = "compositor feedback (wp_presentation): \(c.presented) commits shown, \(c.discarded) discarded, "
            + "\(c.unanswered) never answered; flags seen: " + FrameFeedback.flagText(flagsSeen)
        let s = shownAfterCommit.sorted()
        if let p50 = percentile(sorted: s, 0.5), let p99 = percentile(sorted: s, 0.99), let max = s.last {
            line += "; shown after the commit p50 \(fixed(p50, 1)), p99 \(fixed(p99, 1)), max \(fixed(max, 1)) ms"
        }
        return [line]
    }

    // MARK: Buffers

    /// A buffer the compositor does not hold (its index): one released already, a new one
    /// while fewer than `maxBuffers` exist, else one released within `releaseWaitMilliseconds`.
    private func freeBuffer(bounds: IntRect) -> Int? {
        guard wl_display_get_error(display) == 0 else { return nil }  // the compositor is gone
        _ = wl_display_dispatch_queue_pending(display, queue)
        if let i = buffers.firstIndex(where: { !$0.busy }) { return i }
        if buffers.count < Self.maxBuffers, let b = makeBuffer() {
            buffers.append(b)
            return missing.addBuffer(bounds: bounds)
        }
        var waited: Int32 = 0
        while waited < Self.releaseWaitMilliseconds {
            let start = MonotonicClock.seconds()
            readEvents(timeoutMilliseconds: Self.releaseWaitMilliseconds - waited)
            if let i = buffers.firstIndex(where: { !$0.busy }) { return i }
            waited += max(1, Int32((MonotonicClock.seconds() - start) * 1000))
        }
        return nil
    }

    /// Reads what the connection has (waiting up to `timeoutMilliseconds`) and dispatches our
    /// queue. SDL's events read here stay on its queue for its next pump. Returns at once on a
    /// broken connection (SDL reports that as SDL_QUIT).
    private func readEvents(timeoutMilliseconds: Int32) {
        while wl_display_prepare_read_queue(display, queue) != 0 {
            if wl_display_dispatch_queue_pending(display, queue) < 0 { return }
        }
        _ = wl_display_flush(display)
        var p = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, timeoutMilliseconds) > 0 {
            _ = wl_display_read_events(display)
        } else {
            wl_display_cancel_read(display)
        }
        _ = wl_display_dispatch_queue_pending(display, queue)
    }

    private func makeBuffer() -> ShmBuffer? {
        let (w, h) = bufferSize
        guard w > 0, h > 0 else { return nil }
        let stride = w * 4, size = stride * h
        let fd = CWayland_memfd("darkmode-kiosk")
        guard fd >= 0 else {
            Log.error("memfd_create failed: \(String(cString: strerror(errno)))")
            return nil
        }
        defer { Glibc.close(fd) }
        guard ftruncate(fd, off_t(size)) == 0,
              let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
              memory != UnsafeMutableRawPointer(bitPattern: -1) else {
            Log.error("cannot map a \(w)x\(h) shared-memory buffer: \(String(cString: strerror(errno)))")
            return nil
        }
        // libwayland sends a duplicate of the descriptor; ours closes on return.
        guard let pool = wl_shm_create_pool(shm, fd, Int32(size)) else {
            munmap(memory, size)
            return nil
        }
        let buffer = wl_shm_pool_create_buffer(pool, 0, Int32(w), Int32(h), Int32(stride), format)
        wl_shm_pool_destroy(pool)
        guard let buffer else {
            munmap(memory, size)
            return nil
        }
        let b = ShmBuffer(buffer: buffer, memory: memory, byteCount: size, stride: stride)
        wl_buffer_add_listener(buffer, ShmBuffer.listener, Unmanaged.passUnretained(b).toOpaque())
        return b
    }

    /// Copies output rectangle `o` of the page (through `map`) into 32-bit pixels at `base`
    /// (`pitch` pixels a row): as they are (R, G, B, X bytes: XBGR8888) or with red and blue
    /// swapped (XRGB8888). A large rectangle streams past the caches (`StreamingCopy`: the
    /// compositor reads the buffer, not we), fenced before returning.
    static func copy(_ o: IntRect, map: RotationMap, from frame: Pixmap, into base: UnsafeMutablePointer<UInt32>,
                     pitch: Int, swapsRedBlue: Bool, rows: inout OutputRows) {
        if o.area >= StreamingCopy.minPixels {
            rows.forEach(o, map: map, frame: frame) { y, src in
                StreamingCopy.row(base + (o.minY + y) * pitch + o.minX, from: src, count: o.width, swappingRedBlue: swapsRedBlue)
            }
            StreamingCopy.fence()
            return
        }
        rows.forEach(o, map: map, frame: frame) { y, src in
            let dst = base + (o.minY + y) * pitch + o.minX
            if !swapsRedBlue {
                dst.update(from: src, count: o.width)
                return
            }
            // R, G, B, A bytes (a little-endian 0xAABBGGRR) to XRGB8888's 0xXXRRGGBB.
            for x in 0..<o.width {
                let p = src[x]
                dst[x] = (p & 0xFF00_FF00) | ((p & 0xFF) &<< 16) | ((p &>> 16) & 0xFF)
            }
        }
    }
}

/// One `wl_buffer` over its own shared memory.
final class ShmBuffer {
    let buffer: OpaquePointer
    let memory: UnsafeMutableRawPointer
    let byteCount: Int
    let stride: Int
    /// Attached and not yet released by the compositor.
    var busy = false
    private var destroyed = false

    init(buffer: OpaquePointer, memory: UnsafeMutableRawPointer, byteCount: Int, stride: Int) {
        self.buffer = buffer
        self.memory = memory
        self.byteCount = byteCount
        self.stride = stride
    }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        wl_buffer_destroy(buffer)
        munmap(memory, byteCount)
    }

    nonisolated(unsafe) static let listener: UnsafeMutablePointer<wl_buffer_listener> = {
        let l = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
        l.initialize(to: wl_buffer_listener(release: { data, _ in
            guard let data else { return }
            Unmanaged<ShmBuffer>.fromOpaque(data).takeUnretainedValue().busy = false
        }))
        return l
    }()
}

/// What the registry offers: `wl_shm` (bound at version 1) and its pixel formats, and
/// `wp_presentation` (version 1) where the compositor has it.
final class ShmGlobals {
    var shm: OpaquePointer?
    var formats: Set<UInt32> = []
    var presentation: PresentationClock?

    nonisolated(unsafe) static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        let l = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        l.initialize(to: wl_registry_listener(global: { data, registry, name, interface, _ in
            guard let data, let registry, let interface else { return }
            let me = Unmanaged<ShmGlobals>.fromOpaque(data).takeUnretainedValue()
            switch String(cString: interface) {
            case "wl_shm":
                guard me.shm == nil, let bound = wl_registry_bind(registry, name, CWayland_shmInterface(), 1) else { return }
                let shm = OpaquePointer(bound)
                me.shm = shm
                wl_shm_add_listener(shm, ShmGlobals.shmListener, data)
            case "wp_presentation":
                guard me.presentation == nil, let bound = wl_registry_bind(registry, name, CWayland_presentation(), 1) else { return }
                me.presentation = PresentationClock(proxy: OpaquePointer(bound))
            default:
                return
            }
        }, global_remove: { _, _, _ in }))
        return l
    }()

    nonisolated(unsafe) static let shmListener: UnsafeMutablePointer<wl_shm_listener> = {
        let l = UnsafeMutablePointer<wl_shm_listener>.allocate(capacity: 1)
        l.initialize(to: wl_shm_listener(format: { data, _, format in
            guard let data else { return }
            Unmanaged<ShmGlobals>.fromOpaque(data).takeUnretainedValue().formats.insert(format)
        }))
        return l
    }()
}
