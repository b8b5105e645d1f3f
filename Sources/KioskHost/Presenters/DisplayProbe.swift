import CSDL2

/// What the display says of itself: its refresh rate and DPI, and the viewport a window is
/// expected to get before it exists. From the card our own presenter drives when there is one,
/// else from SDL.
enum DisplayProbe {
    /// The refresh rate (Hz; 60 when unknown) and DPI (nil: unknown) of the display `window`
    /// is on, or of `drm`'s mode.
    static func read(window: OpaquePointer, drm: DrmDevice?) -> (refreshRate: Double, dpi: Double?) {
        if let drm { return (drm.refreshRate, drm.dpi) }
        let displayIndex = max(0, SDL_GetWindowDisplayIndex(window))
        var mode = SDL_DisplayMode()
        let refreshRate = SDL_GetCurrentDisplayMode(displayIndex, &mode) == 0 ? Double(mode.refresh_rate) : 60
        var ddpi: Float = 0
        return (refreshRate, SDL_GetDisplayDPI(displayIndex, &ddpi, nil, nil) == 0 ? Double(ddpi) : nil)
    }

    /// The viewport the window is expected to get, from the display alone (before the window
    /// exists): windowed, the asked size; full-screen, the first display's bounds. Assumes one
    /// output pixel per window unit; nil when the display says nothing.
    static func predictedViewport(_ options: HostOptions, drm: DrmDevice? = nil) -> Viewport? {
        var w = options.size?.width ?? 1024, h = options.size?.height ?? 640
        if let drm {
            let scale = ScalePolicy.resolve(explicit: options.scale, outputWidth: drm.width, windowWidth: drm.width, displayDPI: drm.dpi)
            return Viewport(outputWidth: drm.width, outputHeight: drm.height, windowWidth: drm.width, windowHeight: drm.height,
                            rotation: options.rotation, scale: scale)
        }
        if !options.windowed {
            var bounds = SDL_Rect()
            guard SDL_GetDisplayBounds(0, &bounds) == 0, bounds.w > 0, bounds.h > 0 else { return nil }
            (w, h) = (Int(bounds.w), Int(bounds.h))
        }
        guard w > 0, h > 0 else { return nil }
        var ddpi: Float = 0
        let dpi = SDL_GetDisplayDPI(0, &ddpi, nil, nil) == 0 ? Double(ddpi) : nil
        let scale = ScalePolicy.resolve(explicit: options.scale, outputWidth: w, windowWidth: w, displayDPI: dpi)
        return Viewport(outputWidth: w, outputHeight: h, windowWidth: w, windowHeight: h, rotation: options.rotation, scale: scale)
    }
}
