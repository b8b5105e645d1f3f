import CWayland
import Log
import SystemdNotify
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// A Wayland compositor with no output yet (cage started while the TV is still off: wlroots
/// makes an output only for a connected connector): SDL's wayland driver would fail at once
/// ("The video driver did not add any displays") and the kiosk, and cage with it, would end.
/// Instead, before SDL starts, the kiosk asks the compositor's registry for a `wl_output`
/// and, while there is none, waits for one: one log line, READY=1 with a STATUS that says it
/// waits (so a unit's start does not time out), WATCHDOG=1 pings, no CPU otherwise (a poll
/// on the Wayland socket). When an output appears, SDL starts and the page is shown on it.
enum WaylandOutputWait {
    /// Whether SDL may talk Wayland: `SDL_VIDEODRIVER=wayland`, or none asked for and
    /// `WAYLAND_DISPLAY` set (a compositor with an output answers at once: no wait).
    static func applies(videoDriver: String?, hasWaylandDisplay: Bool) -> Bool {
        if let videoDriver { return videoDriver.lowercased() == "wayland" }
        return hasWaylandDisplay
    }

    /// Returns when the compositor has an output (at once, usually), or cannot be reached
    /// (SDL then says why). False when the compositor went away while waited for (one line).
    static func untilOutput() -> Bool {
        guard let display = wl_display_connect(nil) else { return true }
        defer { wl_display_disconnect(display) }
        let outputs = Outputs()
        guard let registry = wl_display_get_registry(display) else { return true }
        defer { wl_registry_destroy(registry) }
        wl_registry_add_listener(registry, Outputs.listener, Unmanaged.passUnretained(outputs).toOpaque())
        guard wl_display_roundtrip(display) >= 0 else { return true }
        if !outputs.names.isEmpty { return true }
        Log.info("the compositor has no output (no display connected); waiting for one")
        var service = ServiceLink()
        service.ready(status: "waiting for a display to be connected (the compositor has no output)")
        let fd = wl_display_get_fd(display)
        while outputs.names.isEmpty {
            guard wl_display_flush(display) >= 0 || errno == EAGAIN else { return lost() }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, service.idleTimeout(now: MonotonicClock.seconds()))
            if r < 0, errno != EINTR { return lost() }
            if r > 0, wl_display_dispatch(display) < 0 { return lost() }
            service.pingIfDue(now: MonotonicClock.seconds())
        }
        service.status("display connected; starting the page")
        Log.info("the compositor has an output now; the page follows")
        if let interval = service.watchdog?.interval { keepPingingThroughStart(interval: interval, notifier: service.notifier) }
        return true
    }

    /// Longest the start after the wait (SDL, the window, fonts, the first frame) is covered
    /// by `keepPingingThroughStart`: a start that hangs is still caught by the watchdog after it.
    static let startGrace = 60.0

    /// READY=1 went out while waiting, so systemd's watchdog runs from then on; a normal start
    /// has none before READY=1 (TimeoutStartSec= bounds it instead). Until the frame loop
    /// pings itself (`ServiceLink.loopPinged`), for at most `startGrace` seconds, a helper
    /// thread pings at the watchdog's interval (found by booting the cage unit with the display
    /// off: the watchdog killed the kiosk while its first page was being built).
    private static func keepPingingThroughStart(interval: Double, notifier: SystemdNotifier) {
        let until = MonotonicClock.seconds() + startGrace
        // The wait's own pings went through a `ServiceLink` too: from here on only the loop's count.
        ServiceLink.loopPinged.store(false, ordering: .relaxed)
        _ = ThreadStart.spawn(name: "start pings") {
            while !ServiceLink.loopPinged.load(ordering: .relaxed), MonotonicClock.seconds() < until {
                _ = notifier.watchdogPing()
                var pause = timespec(tv_sec: Int(interval), tv_nsec: Int((interval - interval.rounded(.down)) * 1e9))
                nanosleep(&pause, nil)
            }
        }
    }

    private static func lost() -> Bool {
        Log.error("the Wayland display connection ended while waiting for an output")
        return false
    }

    /// The registry's `wl_output` globals (their names), kept up to date by its events.
    final class Outputs {
        var names: Set<UInt32> = []

        nonisolated(unsafe) static let listener: UnsafeMutablePointer<wl_registry_listener> = {
            let l = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
            l.initialize(to: wl_registry_listener(global: { data, _, name, interface, _ in
                guard let data, let interface, String(cString: interface) == "wl_output" else { return }
                Unmanaged<Outputs>.fromOpaque(data).takeUnretainedValue().names.insert(name)
            }, global_remove: { data, _, name in
                guard let data else { return }
                Unmanaged<Outputs>.fromOpaque(data).takeUnretainedValue().names.remove(name)
            }))
            return l
        }()
    }
}
