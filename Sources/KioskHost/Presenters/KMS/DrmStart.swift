import Log
import CSDL2
#if canImport(Glibc)
import Glibc
#endif

/// Before SDL starts: whether the kiosk drives a KMS/DRM display itself (`DrmRules.route`),
/// and if so the card, opened and with master: from the logind session when there is one that
/// gives it (`LogindSeat`, then held by the card's `access` until the host closes it), else
/// directly (control of the session, if taken, is given back at once). SDL is then told to run its `evdev` video
/// driver — the dummy display with SDL's evdev input (keyboard, mouse, touch): SDL stays the
/// event loop and never opens the card (its kmsdrm driver would, and would want master).
enum DrmStart {
    /// The card to present on (nil: SDL's own display), or `fatal` when
    /// `DARKMODE_KIOSK_PRESENT=drm` asked for it and it cannot be had (one message printed).
    static func begin() -> (device: DrmDevice?, fatal: Bool) {
        func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        let route = DrmRules.route(present: env("DARKMODE_KIOSK_PRESENT"), videoDriver: env("SDL_VIDEODRIVER"),
                                   hasDisplay: !(env("DISPLAY") ?? "").isEmpty,
                                   hasWayland: !(env("WAYLAND_DISPLAY") ?? "").isEmpty,
                                   hasCard: !DrmDevice.candidatePaths().isEmpty)
        guard route.tryDRM else { return (nil, false) }
        let logind = LogindSeat.connect()
        switch DrmDevice.open(logind: logind) {
        case .success(let device):
            if case .direct = device.access { logind?.close() }
            SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, "evdev", SDL_HINT_OVERRIDE)
            return (device, false)
        case .failure(let e):
            logind?.close()
            if route.required {
                Log.error("cannot present on KMS/DRM (DARKMODE_KIOSK_PRESENT=drm): \(e.message)")
                return (nil, true)
            }
            Log.warning("the DRM framebuffer presenter cannot run (\(e.message)); SDL's kmsdrm driver presents instead")
            return (nil, false)
        }
    }
}
