import KioskEngine
import KioskSupport
import Raster

/// What goes to the screen each frame: the app's dirty rectangles, or the whole page when
/// `needsFullUpload` is set — the host's one staleness flag, kept here. It is set by a new page
/// size (`setViewport`), by anything that may have lost the screen's content (`contentLost`:
/// expose, shown, restored, render targets reset, the display given back after a VT switch) and
/// by a failed upload or present (e.g. SDL dropped the window surface after a full-screen
/// switch); it is cleared by a successful whole-page upload.
final class ScreenUpdater {
    let presenter: FramePresenter
    private(set) var viewport: Viewport
    /// The next frame sends the whole page and presents, dirty or not.
    private(set) var needsFullUpload = true
    /// The first update's stages went to `StartupTrace`.
    private var traced = false
    /// The cursor moved since the last present.
    private var cursorPending = false
    /// Presents asked of the presenter so far (the screen's sleep says how many it saw asleep: none).
    private(set) var presents = 0

    init(presenter: FramePresenter, viewport: Viewport) {
        self.presenter = presenter
        self.viewport = viewport
    }

    /// Takes a new viewport. Only a new page geometry needs the presenter prepared again
    /// (texture size); any change needs the whole page sent. False when preparing failed.
    func setViewport(_ next: Viewport, prepare: Bool) -> Bool {
        viewport = next
        needsFullUpload = true
        return prepare ? presenter.prepare(next) : true
    }

    /// The screen may have lost what it showed: the next frame sends the whole page.
    func contentLost() { needsFullUpload = true }

    /// Renders the app's frame at `time` and sends it: band by band as the app finishes them
    /// (`KioskApp.renderFrame(at:present:)`: each band is copied out while its rows are still
    /// in the cache), or the whole page after the frame when it must go anyway; then presents.
    /// Returns false when there was nothing to show.
    func render(_ app: KioskApp, at time: Double) -> Bool {
        if needsFullUpload { return update(app.frame, dirty: app.renderFrame(at: time)) }
        var uploaded = true
        let dirty = app.renderFrame(at: time, present: { band in
            if uploaded { uploaded = self.presenter.upload([band], from: app.frame, viewport: self.viewport) }
        })
        guard !dirty.isEmpty else { return false }
        cursorPending = false
        let presented = countedPresent()
        if !uploaded || !presented { needsFullUpload = true }
        return true
    }

    /// Sends what changed in `frame` and presents it. Returns false when there was nothing to
    /// show (no dirty rectangle and no full upload pending).
    func update(_ frame: Pixmap, dirty: [IntRect]) -> Bool {
        let full = needsFullUpload
        guard full || !dirty.isEmpty else { return false }
        needsFullUpload = false
        cursorPending = false
        let uploaded = presenter.upload(full ? [frame.bounds] : dirty, from: frame, viewport: viewport)
        if !traced { StartupTrace.mark("uploaded") }
        let presented = countedPresent()
        if !traced { StartupTrace.mark("presented") }
        traced = true
        if !uploaded || !presented { needsFullUpload = true }
        return true
    }

    /// Moves (or hides, nil) the pointer's cursor, in output pixels; shown with the next present.
    func setCursor(_ outputPixel: Point?) {
        presenter.setCursor(outputPixel)
        cursorPending = true
    }

    /// Presents again when only the cursor moved (the page on screen is unchanged). An upload
    /// of no page rectangles comes first: a presenter that draws the arrow into its own
    /// buffers (DRM) copies `frame` back under the old arrow there.
    func presentCursorIfPending(_ frame: Pixmap) {
        guard cursorPending else { return }
        cursorPending = false
        let uploaded = presenter.upload([], from: frame, viewport: viewport)
        if !uploaded || !countedPresent() { needsFullUpload = true }
    }

    private func countedPresent() -> Bool {
        presents += 1
        return presenter.present(viewport)
    }
}
