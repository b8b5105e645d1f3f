import CSDL2
import KioskSupport
import Log

/// Which presenter a new window gets: our own KMS/DRM one on a card opened before SDL
/// (`DrmStart`), else the SDL display's (`PresenterKind.order`: DARKMODE_KIOSK_PRESENT, else
/// the first that works for the driver).
enum PresenterFactory {
    /// The presenter, and the same object typed when it is ours on `drm` (for the seat); nil
    /// with one message printed when none can be made.
    static func make(window: OpaquePointer, drm: DrmDevice?, env: HostEnvironment) -> (presenter: FramePresenter, drm: DrmPresenter?)? {
        if let drm {
            guard let presenter = DrmPresenter(card: drm, flipOrder: drm.flipOrder) else { return nil }
            return (presenter, presenter)
        }
        return sdlPresenter(window, env: env).map { ($0, nil) }
    }

    /// The presenter on SDL's display: DARKMODE_KIOSK_PRESENT (`env.present`), else the first
    /// that works for this driver; nil with one message printed.
    private static func sdlPresenter(_ window: OpaquePointer, env: HostEnvironment) -> FramePresenter? {
        let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        let kinds = PresenterKind.order(request: env.present, driver: driver)
        for kind in kinds {
            let made: FramePresenter?
            switch kind {
            case .surface: made = SurfacePresenter(window: window)
            case .shm: made = ShmPresenter(window: window)
            case .texture: made = TexturePresenter(window: window)
            case .drm: made = nil  // opened before SDL (`DrmRules.route`), not here
            }
            if let made { return made }
        }
        Log.error(Diagnostics.noDisplayMessage(step: kinds.map(\.step).joined(separator: ", "), videoDriver: env.videoDriver))
        return nil
    }
}
