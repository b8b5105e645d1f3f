import DarkModeToggle
import Glibc
import Raster
import Testing
@testable import KioskEngine
@testable import KioskTools
import Threads

/// What partial rendering promises: on seeded random input, the frame built incrementally
/// (only the dirty rectangles redrawn) equals, byte for byte and on every frame, a full redraw
/// of the same state — both a whole-page redraw with the same caches and a from-scratch draw
/// with no caches at all.
@Suite struct PartialRenderingTests {
    /// Drives three apps with identical input: incremental, forced whole-page, uncached.
    ///
    /// With `lanes` > 1 a fourth app draws every frame with that many threads
    /// (`KioskApp.workers`, real `HelperLanes`) and presents each piece as it is finished; its
    /// frame, its dirty rectangles and what it presented must equal the one-lane app's, and
    /// `present` must be called on the calling thread only. A fifth draws from scratch on as
    /// many lanes.
    static func compare(seed: UInt64, seconds: Double, size: PixelSize, scale: Double, showFPS: Bool,
                        background: PageBackground? = nil, toggleWidth: Double = 80,
                        lanes: Int = 1) -> (frames: Int, partialFrames: Int, parallelFrames: Int, mismatches: [String]) {
        // The whole page: labels drawn (boxes from the fake typesetter), both toggles, the button.
        let options = KioskOptions(pixelWidth: size.width, pixelHeight: size.height, scale: scale, showFPS: showFPS, toggleWidth: toggleWidth,
                                   typesetter: EstimatingTypesetter(drawsBoxes: true), background: background)
        let incremental = KioskApp(options: options, isDarkMode: false)
        let whole = KioskApp(options: options, isDarkMode: false)
        let scratch = KioskApp(options: options, isDarkMode: false)
        scratch.incremental = false
        var apps = [incremental, whole, scratch]
        let helpers = HelperLanes(helpers: lanes - 1)
        let parallel = KioskApp(options: options, isDarkMode: false)
        let parallelScratch = KioskApp(options: options, isDarkMode: false)
        parallelScratch.incremental = false
        if lanes > 1 {
            for app in [parallel, parallelScratch] {
                app.workers = FrameWorkers(lanes: helpers.lanes, run: helpers.run)
                app.parallelMinPixels = 0     // every frame of more than one piece on several lanes
                apps.append(app)
            }
        }
        let presented = Pixmap(width: size.width, height: size.height)
        let caller = pthread_self()
        var parallelFrames = 0
        var input = RandomInteraction(seed: seed, toggle: incremental.layout.togglePixelFrame,
                                      pageWidth: Double(size.width), pageHeight: Double(size.height), maxIdle: 0.5)
        let v = incremental.frame(of: .vivid)
        var vividInput = RandomInteraction(seed: seed &+ 99, toggle: Rect(x: v.minX * scale, y: v.minY * scale, width: v.width * scale, height: v.height * scale),
                                           pageWidth: Double(size.width), pageHeight: Double(size.height), maxIdle: 0.7)
        let b = incremental.frame(of: .button)
        var nextPageEvent = 0.9
        var mismatches: [String] = []
        var partialFrames = 0
        let frames = Int(seconds * 60)
        for i in 0..<frames {
            let t = Double(i) / 60
            while min(input.peekTime(), vividInput.peekTime()) <= t {
                let e = input.peekTime() <= vividInput.peekTime() ? input.next() : vividInput.next()
                let commits = apps.map { VirtualClockDriver.deliver(e, to: $0) }
                if Set(commits.map { "\($0.map(String.init(describing:)) ?? "nil")" }).count > 1 { mismatches.append("frame \(i): commits differ \(commits)") }
            }
            // Now and then: a button tap (the label changes) or a Tab (the focus ring moves).
            if t >= nextPageEvent {
                for app in apps {
                    if i % 2 == 0 {
                        _ = app.handle(PointerEvent(id: 50, phase: .down, location: Point(b.midX, b.midY), timestamp: t))
                        _ = app.handle(PointerEvent(id: 50, phase: .up, location: Point(b.midX, b.midY), timestamp: t))
                    } else {
                        _ = app.handleKey(named: "tab", at: t)
                    }
                }
                nextPageEvent += 1.3
            }
            // The same (fake) frame times for every app, so the overlay shows the same digits.
            for app in apps { app.recordFrameTime(milliseconds: Double(i % 23) * 0.7) }
            let dirty = incremental.renderFrame(at: t)
            if !dirty.isEmpty && dirty != [incremental.frame.bounds] { partialFrames += 1 }
            whole.invalidate()
            #expect(whole.renderFrame(at: t) == [whole.frame.bounds])
            _ = scratch.renderFrame(at: t)
            if let d = firstDifference(incremental.frame, whole.frame) { mismatches.append("frame \(i) t=\(t): vs whole-page redraw at \(d)") }
            if let d = firstDifference(incremental.frame, scratch.frame) { mismatches.append("frame \(i) t=\(t): vs uncached redraw at \(d)") }
            if lanes > 1 {
                var pieces = 0
                let p = parallel.renderFrame(at: t, present: { r in
                    if pthread_equal(pthread_self(), caller) == 0 { mismatches.append("frame \(i): present off the calling thread") }
                    presented.copy(r, from: parallel.frame)
                    pieces += 1
                })
                if pieces > 1 + (showFPS ? 1 : 0) { parallelFrames += 1 }
                if p != dirty { mismatches.append("frame \(i): dirty \(p) with \(lanes) lanes, \(dirty) with one") }
                if let d = firstDifference(incremental.frame, parallel.frame) { mismatches.append("frame \(i) t=\(t): \(lanes) lanes vs one at \(d)") }
                if let d = firstDifference(presented, parallel.frame) { mismatches.append("frame \(i) t=\(t): not presented at \(d)") }
                // From scratch on several lanes: pieces made one toggle per lane, composed in bands.
                _ = parallelScratch.renderFrame(at: t)
                if let d = firstDifference(incremental.frame, parallelScratch.frame) { mismatches.append("frame \(i) t=\(t): from scratch on \(lanes) lanes at \(d)") }
            }
            if mismatches.count > 5 { break }
        }
        return (frames, partialFrames, parallelFrames, mismatches)
    }

    static func firstDifference(_ a: Pixmap, _ b: Pixmap) -> String? {
        guard a.width == b.width, a.height == b.height else { return "size \(a.width)x\(a.height) vs \(b.width)x\(b.height)" }
        let va = a.fullView, vb = b.fullView
        for y in 0..<a.height where memcmp(va.row(y), vb.row(y), a.width * 4) != 0 {
            for x in 0..<a.width where a[x, y] != b[x, y] {
                return "(\(x), \(y)): \(String(a[x, y], radix: 16)) vs \(String(b[x, y], radix: 16))"
            }
        }
        return nil
    }

    @Test(arguments: [(UInt64(1), 1.0, false), (UInt64(7), 2.0, true), (UInt64(42), 1.5, false)])
    func incrementalFramesEqualFullRedraws(seed: UInt64, scale: Double, showFPS: Bool) {
        let r = Self.compare(seed: seed, seconds: 8, size: PixelSize(width: 400, height: 260), scale: scale, showFPS: showFPS)
        #expect(r.mismatches.isEmpty, "seed \(seed): \(r.mismatches)")
        // The comparison means something only if most frames were partial.
        #expect(r.partialFrames > r.frames / 4, "seed \(seed): only \(r.partialFrames) of \(r.frames) frames were partial")
    }

    /// An image whose every pixel differs from its neighbours (gradients and a seeded pattern,
    /// some of it translucent so the page colour shows through): a background drawn from the
    /// wrong place or at the wrong cross-fade weight shows up.
    static func patterned(_ w: Int, _ h: Int, seed: UInt64) -> Pixmap {
        let p = Pixmap(width: w, height: h)
        var s = seed
        for y in 0..<h {
            for x in 0..<w {
                s = s &* 6364136223846793005 &+ 1442695040888963407
                let n = UInt8(truncatingIfNeeded: s >> 56)
                let a: UInt8 = (x + y) % 7 == 0 ? 128 : 255
                p[x, y] = StraightRGBA8(r: UInt8(x * 255 / max(1, w - 1)), g: n, b: UInt8(y * 255 / max(1, h - 1)), a: a).premultiplied.packed
            }
        }
        return p
    }

    /// The same promise over background images (light and dark, cross-fading with the page,
    /// blurred under the button), in both fits.
    @Test(arguments: [(UInt64(3), 1.0, PageBackgroundFit.cover), (UInt64(11), 2.0, .contain)])
    func incrementalFramesEqualFullRedrawsOverImages(seed: UInt64, scale: Double, fit: PageBackgroundFit) {
        let bg = PageBackground(light: Self.patterned(37, 23, seed: seed), dark: Self.patterned(29, 41, seed: seed &+ 1), fit: fit)
        let r = Self.compare(seed: seed, seconds: 8, size: PixelSize(width: 400, height: 260), scale: scale, showFPS: seed == 11,
                             background: bg)
        #expect(r.mismatches.isEmpty, "seed \(seed): \(r.mismatches)")
        #expect(r.partialFrames > r.frames / 4, "seed \(seed): only \(r.partialFrames) of \(r.frames) frames were partial")
    }

    /// Frames drawn by several threads at once (bands of whole-page frames, each toggle's
    /// rectangle) equal frames drawn by one, on every frame: a page large enough for bands,
    /// with and without images, the FPS overlay, focus ring and button label changes.
    @Test(arguments: [(UInt64(5), 2, false), (UInt64(9), 3, true)])
    func framesDrawnByManyLanesEqualOneLane(seed: UInt64, lanes: Int, images: Bool) {
        let bg = images ? PageBackground(light: Self.patterned(37, 23, seed: seed), dark: Self.patterned(29, 41, seed: seed &+ 1), fit: .cover) : nil
        let r = Self.compare(seed: seed, seconds: 5, size: PixelSize(width: 1000, height: 600), scale: 1.5, showFPS: images,
                             background: bg, toggleWidth: 200, lanes: lanes)
        #expect(r.mismatches.isEmpty, "seed \(seed): \(r.mismatches.prefix(6))")
        // Several lanes must really have drawn: frames split into more than one piece.
        #expect(r.parallelFrames > r.frames / 4, "seed \(seed): only \(r.parallelFrames) of \(r.frames) frames were split")
    }

    /// The comparison itself can fail: a pixel poked into the incremental frame is found.
    @Test func aStrayPixelIsCaught() {
        let options = KioskOptions(pixelWidth: 64, pixelHeight: 48)
        let a = KioskApp(options: options, isDarkMode: false), b = KioskApp(options: options, isDarkMode: false)
        _ = a.renderFrame(at: 0); _ = b.renderFrame(at: 0)
        #expect(Self.firstDifference(a.frame, b.frame) == nil)
        a.frame.fill(IntRect(x: 5, y: 7, width: 1, height: 1), with: 0xFF00_00FF)
        #expect(Self.firstDifference(a.frame, b.frame)?.hasPrefix("(5, 7)") == true)
    }
}
