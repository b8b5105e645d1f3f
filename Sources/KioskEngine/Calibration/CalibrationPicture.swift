import Raster

/// What `darkmode-kiosk calibrate` shows, drawn with the project's rasterizer into a page-sized
/// pixmap (the presenter turns it by `--rotate` like the page): a dark screen, the target to
/// touch as a crosshair in a ring, the targets already touched as small dots, the check point's
/// crosshair in amber. After a refused round the ring is red until a target is touched. Pure.
public enum CalibrationPicture {
    public static let background = Color(r255: 20, g255: 20, b255: 24)
    public static let crosshair = Color.white
    public static let checkCrosshair = Color(r255: 255, g255: 190, b255: 40)
    public static let refusedRing = Color(r255: 230, g255: 60, b255: 50)
    public static let touched = Color(r255: 90, g255: 200, b255: 110)

    /// The crosshair's arm length in pixels for a page of this size: 4 % of the shorter side, at least 16.
    public static func armLength(pageWidth: Int, pageHeight: Int) -> Double {
        max(16, 0.04 * Double(min(pageWidth, pageHeight)))
    }

    /// Draws the round's state into `pixmap` (the page's size) — all of it: the whole pixmap changes.
    public static func draw(_ round: CalibrationRound, refused: Bool, into pixmap: Pixmap) {
        let canvas = Canvas(pixmap)
        canvas.fill(deviceRect: pixmap.bounds, background)
        let arm = armLength(pageWidth: pixmap.width, pageHeight: pixmap.height)
        for i in 0..<round.samples.count {
            let t = round.targets[i]
            canvas.fill(.circle(center: Point(t.pageX, t.pageY), radius: arm / 5), .solid(touched))
        }
        let t = round.targets[round.index]
        let c = Point(t.pageX, t.pageY)
        let colour = round.index == round.checkIndex ? checkCrosshair : crosshair
        // The ring (an even-odd annulus), then the arms, 2 px wide and centred on the target.
        var ring = Path.circle(center: c, radius: arm * 0.6)
        ring.append(.circle(center: c, radius: arm * 0.6 - 2))
        canvas.fill(ring, .solid(refused ? refusedRing : colour), rule: .evenOdd)
        canvas.fill(.rect(Rect(x: c.x - arm, y: c.y - 1, width: 2 * arm, height: 2)), .solid(colour))
        canvas.fill(.rect(Rect(x: c.x - 1, y: c.y - arm, width: 2, height: 2 * arm)), .solid(colour))
    }
}
