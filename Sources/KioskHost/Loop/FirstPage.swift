import KioskEngine
import KioskSupport
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// Builds the app (`make`: in `run`, fonts included) and renders its first page on a second
/// thread while the main thread opens the window (on Wayland SDL initialises EGL there even for
/// the shared-memory presenter: ~25 ms of CPU with llvmpipe), for the page size the display
/// reports before any window exists. `take()` waits for it; the
/// loop re-lays the app out if the real window came out another size.
final class FirstPage: @unchecked Sendable {
    private let make: (PageGeometry) -> KioskApp
    private let geometry: PageGeometry
    private let clock: HostClock
    private var app: KioskApp?
    private var thread = pthread_t()
    private var started = false

    /// Starts the build; nil when the size cannot be known before the window (the loop then
    /// builds the app itself, as before).
    init?(options: HostOptions, drm: DrmDevice? = nil, clock: HostClock, make: @escaping (PageGeometry) -> KioskApp) {
        guard let v = DisplayProbe.predictedViewport(options, drm: drm) else { return nil }
        self.make = make
        geometry = v.geometry
        self.clock = clock
        let box = Unmanaged.passRetained(self).toOpaque()
        started = ThreadStacks.create(&thread, { raw in
            let me = Unmanaged<FirstPage>.fromOpaque(raw!).takeRetainedValue()
            StartupTrace.mark("page thread")
            let app = me.make(me.geometry)
            StartupTrace.mark("page built")
            _ = app.renderFrame(at: me.clock.now())
            StartupTrace.mark("page drawn")
            me.app = app
            return nil
        }, box) == 0
        if !started {
            Unmanaged<FirstPage>.fromOpaque(box).release()
            return nil
        }
    }

    /// Waits for the build and hands the app over (to the loop thread).
    func take() -> KioskApp? {
        guard started else { return nil }
        pthread_join(thread, nil)
        started = false
        return app
    }
}
