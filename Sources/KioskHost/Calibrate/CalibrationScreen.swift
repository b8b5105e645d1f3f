import KioskEngine
import Log
import Raster

/// The calibration round on a screen, whoever shows it (our KMS/DRM presenter on a bare
/// console, SDL's window under a compositor): the pure round (`CalibrationRound`), drawn by
/// `CalibrationPicture` into a page-sized pixmap that the presenter turns by `--rotate` as it
/// turns `run`'s page, and the line for the person at the screen naming the next target.
final class CalibrationScreen {
    let presenter: FramePresenter
    let viewport: Viewport
    private let page: Pixmap
    private(set) var round: CalibrationRound
    /// The last round was refused: the ring is red until a target is touched.
    private var refused = false
    private let say: (String) -> Void

    init(presenter: FramePresenter, viewport: Viewport, say: @escaping (String) -> Void) {
        self.presenter = presenter
        self.viewport = viewport
        self.say = say
        page = Pixmap(width: viewport.pagePixelWidth, height: viewport.pagePixelHeight)
        round = CalibrationRound(pageWidth: viewport.pagePixelWidth, pageHeight: viewport.pagePixelHeight,
                                 rotation: viewport.rotation)
        _ = presenter.prepare(viewport)
    }

    /// Draws the round as it stands (the whole page) and says which target is next.
    func show() {
        redraw()
        let t = round.targets[round.index]
        let kind = round.index == round.checkIndex ? "the check point" : "target \(round.index + 1) of \(CalibrationRound.fittedCount)"
        say("calibrate: touch \(kind) at (\(CalibrationRound.pixels(t.pageX)), \(CalibrationRound.pixels(t.pageY))) px: the centre of the crosshair, then lift")
    }

    /// Draws the round as it stands again (the screen lost it), saying nothing.
    func redraw() {
        CalibrationPicture.draw(round, refused: refused, into: page)
        _ = presenter.upload([page.bounds], from: page, viewport: viewport)
        _ = presenter.present(viewport)
    }

    func press(x: Double, y: Double) { round.press(x: x, y: y) }
    func move(x: Double, y: Double) { round.move(x: x, y: y) }
    func cancel() { round.cancel() }

    /// The lift: the next target or a refused round shown, or the result when the round is done.
    func release() -> CalibrationResult? {
        guard let step = round.release() else { return nil }
        switch step {
        case .next:
            refused = false
            show()
        case .restart(let reason):
            refused = true
            Log.warning("calibrate: round refused: \(reason); touch the targets again")
            show()
        case .done(let result):
            return result
        }
        return nil
    }
}
