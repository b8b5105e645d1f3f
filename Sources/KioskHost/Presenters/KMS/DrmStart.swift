import Log
import CSDL2
import KioskSupport
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
    /// Logind is skipped with `DARKMODE_KIOSK_LOGIND=0` (`env.logind`).
    /// `connector`: config `display.connector` (nil: the first connected one).
    static func begin(_ env: HostEnvironment, connector: String? = nil) -> (device: DrmDevice?, fatal: Bool) {
        let route = DrmRules.route(present: env.present, videoDriver: env.videoDriver,
                                   hasDisplay: env.hasX11Display, hasWayland: env.hasWaylandDisplay,
                                   hasCard: !DrmDevice.candidatePaths(device: env.drmDevice).isEmpty)
        guard route.tryDRM else { return (nil, false) }
        let logind = env.logind ? LogindSeat.connect() : nil
        switch DrmDevice.open(logind: logind, env: env, connector: connector) {
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
