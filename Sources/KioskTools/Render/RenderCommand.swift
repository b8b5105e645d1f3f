import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport

/// `darkmode-kiosk render`: one frame of the toggle to a PNG file.
public enum RenderCommand {
    /// Renders the frame the options describe (no file I/O).
    public static func image(_ o: RenderOptions, theme: PageTheme = .standard, cached: Bool = true) -> Pixmap {
        let width = o.resolvedWidth
        let renderer = o.style.makeRenderer(width: Double(width), scale: 1)
        let frame = ToggleFrame(appearance: o.resolvedProgress, position: o.resolvedPosition,
                                ambient: Ambient.state(time: o.time, reduceMotion: o.isStatic))
        let height = Int((Double(width) * ToggleMetrics.componentAspect).rounded())
        let pixmap: Pixmap
        let origin: (x: Int, y: Int)
        if let page = o.page {
            pixmap = Pixmap(width: page.width, height: page.height)
            let color = o.pageColor.map { Color(r255: Double($0[0]), g255: Double($0[1]), b255: Double($0[2])) }
                ?? theme.pageColor(isDark: o.resolvedIsDark)
            pixmap.fill(pixmap.bounds, with: color.premultiplied8.packed)
            origin = ((page.width - width) / 2, (page.height - height) / 2)
        } else {
            pixmap = Pixmap(width: width, height: height)
            origin = (0, 0)
        }
        renderer.draw(frame, on: Canvas(pixmap), origin: origin, cached: cached)
        return pixmap
    }

    /// Renders and writes the PNG; errors name the file.
    public static func run(_ o: RenderOptions, theme: PageTheme = .standard) throws(KioskError) {
        let pix = image(o, theme: theme)
        do { try PNGFile.write(pix, to: o.outPath) } catch {
            throw .runtime("render --out: \(error)")
        }
    }
}

