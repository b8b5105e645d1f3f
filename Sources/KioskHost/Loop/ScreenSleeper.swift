import Appearance
import AppearanceBus
import DarkModeToggle
import KioskEngine
import Log
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// The screen's sleep in the frame loop (config `display.sleep`, and the display commands of an
/// event handler that sends them: the fleet's `display/set`), around the pure
/// `ScreenSleepPolicy`: after each pass it asks the policy whether the screen sleeps now and
/// how long the idle wait may last before it must look again (the next change: no polling);
/// input goes through it first (a press or a key wakes a sleeping screen and is swallowed).
///
/// Asleep: on our DRM presenter the output is switched off (`DrmPresenter.setPowered`: atomic
/// `ACTIVE=0`, or the connector's DPMS); under a compositor (X11, Wayland through SDL) the page
/// is replaced by black once. No frames are drawn (`FrameLoop.wantsFrame`), the appearance
/// sources are still followed (the app's state changes; the page wakes in the right mode).
/// Awake again: the output switched on and the whole page sent. One log line per change, and
/// systemd's STATUS says "screen asleep" or "screen awake".
final class ScreenSleeper {
    private var policy: ScreenSleepPolicy
    private let screen: ScreenUpdater
    private let drm: DrmPresenter?
    /// The output was switched off (not just drawn black): it is switched on at the wake.
    private var poweredOff = false
    /// When it fell asleep (host seconds) and the presents counted then.
    private var asleepSince: (time: Double, presents: Int)?

    /// Nil when sleep is off in `settings` and nothing outside may ask for it (`commanded`:
    /// an event handler that sends display commands, the fleet's `display/set`).
    init?(settings: SleepSettings, screen: ScreenUpdater, now: Double, commanded: Bool = false, lines: RepeatingLines? = nil) {
        guard settings.isOn || commanded else { return nil }
        self.lines = lines
        policy = ScreenSleepPolicy(settings: settings, zone: AppearanceRunner.systemZone, now: now)
        self.screen = screen
        drm = screen.presenter as? DrmPresenter
        if settings.isOn { Log.info("screen sleep: \(settings.summary)") }
        statusSaysSleep = settings.isOn
    }

    /// Where "screen asleep"/"screen awake" go (an automation switching it all day must not
    /// write two lines a switch forever); nil: straight to the log.
    private let lines: RepeatingLines?

    /// STATUS names the sleep when it is configured, or once a command has used it.
    private var statusSaysSleep: Bool

    /// A display command from outside: sleep now (until input or `on`), or wake.
    func command(_ request: DisplayRequest, now: Double) {
        statusSaysSleep = true
        if let change = policy.command(sleep: request == .sleep, now: now) { apply(change, now: now) }
    }

    var isAsleep: Bool { policy.isAsleep }

    /// The wall clock (UTC seconds) the schedule is read against.
    static func utcNow() -> Int64 { Int64(time(nil)) }

    /// What STATUS adds (nil while nothing has used the sleep).
    var statusNote: String? {
        guard statusSaysSleep else { return nil }
        return isAsleep ? "screen asleep" : "screen awake"
    }

    /// At the end of a pass: falls asleep (or wakes at the schedule's end) when due. Returns the
    /// seconds until the next look (nil: only input can change it). Held pointers keep it awake.
    func update(now: Double, pointersDown: Bool) -> Double? {
        let utc = Self.utcNow()
        if !pointersDown, let change = policy.update(now: now, utc: utc) { apply(change, now: now) }
        return policy.nextCheck(now: now, utc: utc)
    }

    /// A pointer event: true when the page may have it (false: it woke the screen, or belongs
    /// to the gesture that did).
    func admit(_ e: PointerEvent, now: Double) -> Bool {
        let (deliver, change) = policy.admit(e, now: now)
        if let change { apply(change, now: now) }
        return deliver
    }

    /// A key press: true when the page may have it.
    func admitKey(now: Double) -> Bool {
        let (deliver, change) = policy.admitKey(now: now)
        if let change { apply(change, now: now) }
        return deliver
    }

    private func apply(_ change: ScreenSleepPolicy.Change, now: Double) {
        switch change {
        case .fellAsleep(let reason):
            poweredOff = drm?.setPowered(false) ?? false
            if !poweredOff { _ = screen.showBlack() }
            asleepSince = (now, screen.presents)
            let why: String
            switch reason {
            case .idle: why = "no input for \(SleepSettings.seconds(policy.settings.afterIdleSeconds ?? 0)) s"
            case .schedule: why = "the schedule \(policy.settings.schedule.map(\.description) ?? "")"
            case .command: why = "a display command"
            }
            log(.asleep, "screen asleep (\(why); \(poweredOff ? "display switched off" : "page black, no frames"))")
        case .wokeByInput(let touch):
            wake(touch ? "a touch or click" : "a key", now: now)
        case .wokeByCommand:
            wake("a display command", now: now)
        case .wokeBySchedule:
            wake("the schedule \(policy.settings.schedule.map(\.description) ?? "") ended", now: now)
        }
    }

    private func wake(_ why: String, now: Double) {
        if poweredOff { _ = drm?.setPowered(true) }
        poweredOff = false
        screen.contentLost()
        var stay = ""
        if let since = asleepSince {
            stay = "; asleep \(SleepSettings.seconds((now - since.time).rounded())) s, \(screen.presents - since.presents) frames presented meanwhile"
        }
        asleepSince = nil
        log(.awake, "screen awake (\(why)\(stay))")
    }

    private func log(_ key: RepeatingLines.Key, _ line: String) {
        if let lines { lines.info(key, line) } else { Log.info(line) }
    }
}

extension ScreenUpdater {
    /// Sends an opaque black page and presents it (a compositor's "off"); the next frame sends
    /// the whole page again. False when the presenter failed.
    func showBlack() -> Bool {
        let black = Pixmap(width: viewport.pagePixelWidth, height: viewport.pagePixelHeight)
        black.fill(black.bounds, with: PremultipliedRGBA8(r: 0, g: 0, b: 0, a: 255).packed)
        let ok = presenter.upload([black.bounds], from: black, viewport: viewport) && presenter.present(viewport)
        contentLost()
        return ok
    }
}
