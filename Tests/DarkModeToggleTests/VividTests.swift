import Foundation
import GoldenSupport
import Raster
import Testing
@testable import DarkModeToggle

private func renderVivid(width: Double, scale: Double, frame: ToggleFrame, cached: Bool, pad: Int = 0,
                         page: Color? = Color(r255: 205, g255: 231, b255: 255), renderer: VividRenderer? = nil) -> Pixmap {
    let r = renderer ?? VividRenderer(width: width, scale: scale)
    let w = Int((width * scale).rounded(.up)) + 2 * pad
    let h = Int((width * scale * 80 / 130).rounded(.up)) + 2 * pad
    let pix = Pixmap(width: w, height: h)
    let canvas = Canvas(pix)
    if let page { canvas.fill(deviceRect: pix.bounds, page) }
    r.draw(frame, on: canvas, origin: (pad, pad), cached: cached)
    return pix
}

private func frame(_ p: Double, _ q: Double? = nil, time: Double = 0, reduceMotion: Bool = true) -> ToggleFrame {
    ToggleFrame(appearance: p, position: q ?? p, ambient: Ambient.state(time: time, reduceMotion: reduceMotion))
}

private func close(_ c: PremultipliedRGBA8, _ want: Color, _ tol: Int) -> Bool {
    let w = want.premultiplied8
    return abs(Int(c.r) - Int(w.r)) <= tol && abs(Int(c.g) - Int(w.g)) <= tol && abs(Int(c.b) - Int(w.b)) <= tol
}

/// Golden images of the Vivid style, same tolerance and reasons as `GoldenTests`: each channel
/// within 2/255 and at most 0.5 % of pixels differing at all. Regenerate deliberately with
/// `DARKMODE_UPDATE_GOLDENS=1 swift test --filter VividGoldenTests`.
@Suite struct VividGoldenTests {
    static let cases: [(width: Int, progress: Double, time: Double?)] = {
        var c: [(Int, Double, Double?)] = []
        for w in [130, 260] { for p in [0, 0.5, 1] { for t in [nil, 1.2] as [Double?] { c.append((w, p, t)) } } }
        return c
    }()

    static func name(_ w: Int, _ p: Double, _ t: Double?) -> String {
        "vivid-w\(w)-p\(String(format: "%.1f", p))-\(t.map { "t\($0)" } ?? "static").png"
    }

    @Test(arguments: 0..<12)
    func matchesGolden(index: Int) throws {
        let (w, p, t) = Self.cases[index]
        let file = Self.name(w, p, t)
        let image = renderVivid(width: Double(w), scale: 1, frame: frame(p, time: t ?? 0, reduceMotion: t == nil),
                                cached: true, page: nil)
        try expectMatchesGolden(image, file: file,
                                sourceFolder: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens").path,
                                bundled: Bundle.module.path(forResource: file, ofType: nil, inDirectory: "Goldens"))
    }
}

@Suite struct VividRenderingTests {
    static let states: [(Double, Double, Double, Bool)] = [
        // appearance, position, ambient time, reduce motion
        (0, 0, 0, true), (0, 0, 1.2, false), (0.35, 0.35, 1.2, false), (0.5, 0.62, 2.7, false),
        (1, 1, 0.4, false), (1, 1.04, 3.3, false), (0.8, -0.02, 0, true),
    ]

    @Test(arguments: [(260.0, 1.0), (130.0, 2.0), (173.0, 1.5)])
    func cachedAndUncachedAgree(width: Double, scale: Double) {
        let renderer = VividRenderer(width: width, scale: scale)
        for (a, q, t, rm) in Self.states {
            let f = frame(a, q, time: t, reduceMotion: rm)
            let fresh = renderVivid(width: width, scale: scale, frame: f, cached: false, pad: 40)
            let cached = renderVivid(width: width, scale: scale, frame: f, cached: true, pad: 40, renderer: renderer)
            let d = maxChannelDifference(fresh, cached)
            #expect(d.value <= 1, "state p=\(a) q=\(q) t=\(t): differs by \(d.value) at \(d.x),\(d.y)")
        }
    }

    /// Frames of the kept composition with its shortcuts (the capsule's shadow under the inner
    /// layer only where the inner layer does not cover it, the inner sky in one pass through a
    /// table, the inner layer drawn straight onto the canvas where the capsule is opaque)
    /// against the long way (the whole shadow, the sky in its three passes, the inner layer
    /// composited everywhere): the same bytes, cross-fading and at rest.
    @Test(arguments: [(260.0, 1.0), (130.0, 2.0), (173.0, 1.5), (260.0, 2.0)])
    func framesEqualTheLongWay(width: Double, scale: Double) {
        let renderer = VividRenderer(width: width, scale: scale)
        let whole = VividRenderer(width: width, scale: scale)
        whole.composesTheLongWay = true
        for (i, p) in [0, 0.002, 0.05, 0.25, 0.5, 0.62, 0.9, 0.998, 1].enumerated() {
            let f = frame(p, p, time: 0.7 * Double(i), reduceMotion: false)
            let fresh = renderVivid(width: width, scale: scale, frame: f, cached: true, pad: 40, renderer: whole)
            let kept = renderVivid(width: width, scale: scale, frame: f, cached: true, pad: 40, renderer: renderer)
            let d = maxChannelDifference(fresh, kept)
            #expect(d.value == 0, "p=\(p): differs by \(d.value) at \(d.x),\(d.y)")
        }
    }

    @Test func drawsOnlyInsideItsBounds() {
        // Whatever the state, nothing lands outside `bounds` (the page stays untouched there),
        // and the track's shadow stops at the track frame below the track.
        let r = VividRenderer(width: 260, scale: 1)
        let pad = 60
        for (a, q, t, rm) in Self.states {
            let pix = renderVivid(width: 260, scale: 1, frame: frame(a, q, time: t, reduceMotion: rm), cached: true,
                                  pad: pad, page: nil, renderer: r)
            let b = r.bounds(origin: (pad, pad))
            var outside = 0
            for y in 0..<pix.height { for x in 0..<pix.width where !(x >= b.minX && x < b.maxX && y >= b.minY && y < b.maxY) {
                if pix[x, y] != 0 { outside += 1 }
            } }
            #expect(outside == 0, "p=\(a): \(outside) pixels outside the bounds")
        }
        // Left of the sun's reach, the page just below the track frame is untouched.
        let track = r.trackDeviceBounds(origin: (pad, pad))
        let light = renderVivid(width: 260, scale: 1, frame: frame(1, 1), cached: true, pad: pad, page: nil, renderer: r)
        #expect(light[track.minX + 40, track.maxY] == 0)
        #expect(light[track.minX + 40, track.maxY - 1] != 0)
    }

    @Test func lightAndDarkLookRight() {
        let m = ToggleMetrics(width: 260)
        let light = renderVivid(width: 260, scale: 1, frame: frame(0), cached: false)
        let dark = renderVivid(width: 260, scale: 1, frame: frame(1), cached: false)
        let trackTop = m.trackOriginY
        // Day sky at the upper right, outside the halos (centre x ≈ 64 pt, largest radius 117 pt).
        #expect(close(light.color(x: 215, y: Int(trackTop + 22)), VividArt.Palette.daySky, 3))
        // Night sky at the far left, outside the halos (centre x ≈ 199 pt at dark) and the stars.
        #expect(close(dark.color(x: 14, y: Int(trackTop + 40)), VividArt.Palette.nightSky, 3))
        // Sun and moon centres: the disc fills.
        let sunX = Int(m.celestialOriginX(position: 0) + VividArt.sun.center.x * m.celestialScale)
        let moonX = Int(m.celestialOriginX(position: 1) + VividArt.moon.center.x * m.celestialScale)
        let cy = Int(m.celestialOriginY + VividArt.sun.center.y * m.celestialScale)
        #expect(close(light.color(x: sunX, y: cy), VividArt.Palette.sun, 3))
        // A point of the moon away from the craters (below-left of centre).
        let moonY = Int(m.celestialOriginY + (VividArt.moon.frame.minY + 36) * m.celestialScale)
        let moonPX = Int(m.celestialOriginX(position: 1) + (VividArt.moon.frame.minX + 14) * m.celestialScale)
        #expect(close(dark.color(x: moonPX, y: moonY), VividArt.Palette.moon, 3))
        // The crater of diameter 15 at (7, 18): its centre is crater-coloured.
        let craterX = Int(m.celestialOriginX(position: 1) + (VividArt.moon.frame.minX + 14.5) * m.celestialScale)
        let craterY = Int(m.celestialOriginY + (VividArt.moon.frame.minY + 25.5) * m.celestialScale)
        #expect(close(dark.color(x: craterX, y: craterY), VividArt.Palette.moonCrater, 3))
        _ = moonX
    }

    @Test func haloFollowsTheAppearance() {
        // At a point inside the smallest halo at appearance 0 (only inside the largest at 1), the
        // day sky is lightened by the three discs, a = 1 − 0.94·0.9·0.82 white over it, after
        // the discs' own shadow (black 0.28 × a, fully under the discs here) darkened it.
        let m = ToggleMetrics(width: 260)
        let r = VividRenderer(width: 260, scale: 1)
        let c0 = VividArt.haloCenter(appearance: 0)
        // Away from the border's shadow, the halo edges and the clouds.
        let x = Int((c0.x + 20) * m.trackScale), y = Int(m.trackOriginY + 22 * m.trackScale)
        let a = 1 - 0.94 * 0.9 * 0.82
        let sky = VividArt.Palette.daySky, shade = 1 - 0.28 * a
        func lit(_ v: Double) -> Double { v * shade * (1 - a) + a }
        let lit = Color(r: lit(sky.r), g: lit(sky.g), b: lit(sky.b))
        // Position far left so that the sun does not cover the probe.
        let atLight = renderVivid(width: 260, scale: 1, frame: frame(0, 1), cached: true, renderer: r)
        #expect(close(atLight.color(x: x, y: y), lit, 3), "\(atLight.color(x: x, y: y)) vs \(lit.premultiplied8)")
        // At appearance 1 the halo has moved right (the probe is only inside the biggest disc).
        let atDark = renderVivid(width: 260, scale: 1, frame: frame(1, 1), cached: true, renderer: r)
        #expect(!close(atDark.color(x: x, y: y), lit, 10))
    }
}

@Suite struct VividAmbientTests {
    @Test func cloudsFloatBetweenPlusFiveAndMinusThree() {
        for (g, d) in [(0, 4.8), (1, 6.2)] {
            #expect(abs(VividAmbient.cloudOffsetY(group: g, time: 0, reduceMotion: false) - 5) < 1e-9)
            #expect(abs(VividAmbient.cloudOffsetY(group: g, time: d, reduceMotion: false) + 3) < 1e-9)
            #expect(abs(VividAmbient.cloudOffsetY(group: g, time: 2 * d, reduceMotion: false) - 5) < 1e-9)
            // Ease-in-out: symmetric about the middle of a leg, slow at the ends.
            #expect(abs(VividAmbient.cloudOffsetY(group: g, time: d / 2, reduceMotion: false) - 1) < 1e-6)
            #expect(VividAmbient.cloudOffsetY(group: g, time: d * 0.1, reduceMotion: false) > 5 - 8 * 0.1)
            #expect(VividAmbient.cloudOffsetY(group: g, time: 1.7, reduceMotion: true) == 0)
        }
    }

    @Test func starsScaleLinearlyOnTheirOwnPeriods() {
        for (g, d) in zip(1...6, [3.5, 4.1, 4.9, 5.3, 3, 2.2]) {
            #expect(abs(VividAmbient.starScale(group: g, time: 0, reduceMotion: false) - 0.2) < 1e-9)
            #expect(abs(VividAmbient.starScale(group: g, time: d, reduceMotion: false) - 1) < 1e-9)
            #expect(abs(VividAmbient.starScale(group: g, time: d / 4, reduceMotion: false) - 0.4) < 1e-6)
            #expect(abs(VividAmbient.starScale(group: g, time: 1.5 * d, reduceMotion: false) - 0.6) < 1e-6)
            #expect(VividAmbient.starScale(group: g, time: 0.3, reduceMotion: true) == 1)
        }
    }

    @Test func ambientStateCarriesTheVividLoops() {
        let s = Ambient.state(time: 2.0, reduceMotion: false)
        #expect(s.vividCloudOffsetsY.count == 2 && s.vividStarScales.count == 6)
        #expect(s.vividStarScales[5] == VividAmbient.starScale(group: 6, time: 2.0, reduceMotion: false))
        // Reduce Motion: the loops stand still, so frames at different clocks are equal.
        #expect(Ambient.state(time: 1, reduceMotion: true) == Ambient.state(time: 7.3, reduceMotion: true))
    }

    @Test func bothStylesMakeRenderers() {
        #expect(ToggleStyle.original.makeRenderer(width: 130, scale: 1) is ToggleRenderer)
        #expect(ToggleStyle.vivid.makeRenderer(width: 130, scale: 1) is VividRenderer)
        #expect(ToggleStyle(rawValue: "vivid") == .vivid)
    }
}

@Suite struct VividDirtyBoundsTests {
    /// Every pixel that differs between two frames lies inside `dirtyBounds` of that change.
    @Test func changedPixelsLieInsideTheDirtyBounds() {
        let r = VividRenderer(width: 260, scale: 1)
        let pad = 60
        let pairs: [(ToggleFrame, ToggleFrame)] = [
            (frame(0, time: 0.5, reduceMotion: false), frame(0, time: 2.9, reduceMotion: false)),
            (frame(1, time: 0.5, reduceMotion: false), frame(1, time: 1.7, reduceMotion: false)),
            (frame(0), frame(0.4)), (frame(0.4), frame(1, 1.05)), (frame(1, 0.2), frame(1, 0.9)),
        ]
        for (a, b) in pairs {
            let pa = renderVivid(width: 260, scale: 1, frame: a, cached: true, pad: pad, renderer: r)
            let pb = renderVivid(width: 260, scale: 1, frame: b, cached: true, pad: pad, renderer: r)
            let d = r.dirtyBounds(from: a, to: b, origin: (pad, pad))
            var outside = 0, changed = 0
            for y in 0..<pa.height { for x in 0..<pa.width where pa[x, y] != pb[x, y] {
                changed += 1
                if !(x >= d.minX && x < d.maxX && y >= d.minY && y < d.maxY) { outside += 1 }
            } }
            #expect(changed > 0, "the pair should change something")
            #expect(outside == 0, "\(outside) changed pixels outside \(d)")
        }
        #expect(r.dirtyBounds(from: frame(0.3), to: frame(0.3), origin: (0, 0)) == .zero)
        #expect(r.dirtyBounds(from: nil, to: frame(0.3), origin: (5, 7)) == r.bounds(origin: (5, 7)))
    }
}
