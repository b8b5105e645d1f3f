import DarkModeToggle
import Raster
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// `render --style original|vivid`.
@Suite struct RenderStyleTests {
    @Test func parsesTheStyle() throws {
        guard case .render(let v) = try CommandLineParser.parse(["render", "--out", "a.png", "--style", "vivid"]),
              case .render(let d) = try CommandLineParser.parse(["render", "--out", "a.png"]) else {
            Issue.record("not render"); return
        }
        #expect(v.style == .vivid)
        #expect(d.style == .original)
        #expect(throws: KioskError.self) { try CommandLineParser.parse(["render", "--out", "a.png", "--style", "glass"]) }
    }

    @Test func rendersTheChosenStyle() {
        // Light, at rest: the track's sky right of the sun is each style's day sky.
        var o = RenderOptions(outPath: "x.png")
        o.width = 260
        o.isStatic = true
        let original = RenderCommand.image(o)
        o.style = .vivid
        let vivid = RenderCommand.image(o)
        let probe = (x: 215, y: Int(ToggleMetrics(width: 260).trackOriginY + 22))
        #expect(original.color(x: probe.x, y: probe.y) == ToggleArt.Palette.daySky.premultiplied8)
        let c = vivid.color(x: probe.x, y: probe.y), want = VividArt.Palette.daySky.premultiplied8
        #expect(abs(Int(c.r) - Int(want.r)) <= 3 && abs(Int(c.g) - Int(want.g)) <= 3 && abs(Int(c.b) - Int(want.b)) <= 3, "\(c)")
    }
}
