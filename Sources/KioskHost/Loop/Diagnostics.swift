import CSDL2
import SystemdNotify
import KioskSupport
#if canImport(Glibc)
import Glibc
#endif
import Threads

/// Small side-effect helpers at the host's edge: SDL's error, the no-display message, clocks.
enum Diagnostics {
    /// The last SDL error, or a placeholder when SDL left none.
    static var sdlError: String {
        let e = String(cString: SDL_GetError())
        return e.isEmpty ? "unknown SDL error" : e
    }

    /// The clear failure message when no display can be opened; `videoDriver`: the
    /// `SDL_VIDEODRIVER` the kiosk started with (`HostEnvironment.videoDriver`).
    static func noDisplayMessage(step: String, videoDriver: String?, reason: String? = nil) -> String {
        var drivers: [String] = []
        for i in 0..<max(0, SDL_GetNumVideoDrivers()) {
            if let name = SDL_GetVideoDriver(i) { drivers.append(String(cString: name)) }
        }
        let current = videoDriver.map { "SDL_VIDEODRIVER is \"\($0)\"" } ?? "SDL_VIDEODRIVER is not set"
        return """
            cannot open a display: \(step) failed: \(reason ?? sdlError) (\(current)).
              Choose the video driver with the SDL_VIDEODRIVER environment variable: x11 (an X server; needs DISPLAY), \
            wayland (a Wayland compositor; needs WAYLAND_DISPLAY), or kmsdrm (the console without a desktop; needs \
            /dev/dri and the video group), e.g. `SDL_VIDEODRIVER=kmsdrm darkmode-kiosk`. This SDL offers: \
            \(drivers.isEmpty ? "none" : drivers.joined(separator: ", ")).
            """
    }

    /// Seconds from process start to now (/proc/self/stat's start time: about 10 ms
    /// resolution), or nil when unavailable.
    static func secondsSinceProcessStart() -> Double? {
        StartupTrace.processStart().map { MonotonicClock.seconds() - $0 }
    }
}

/// The host's one clock, in seconds since SDL initialised: SDL's millisecond tick origin (the
/// clock of event timestamps) refined with the high-resolution performance counter for frames.
struct HostClock {
    private let origin: UInt64
    private let frequency: Double

    init() {
        frequency = Double(SDL_GetPerformanceFrequency())
        let counter = SDL_GetPerformanceCounter()
        let ticks = SDL_GetTicks64()
        // The counter value at which SDL's tick count was zero.
        origin = counter &- UInt64(Double(ticks) / 1000 * frequency)
    }

    /// Now, in seconds.
    func now() -> Double { Double(SDL_GetPerformanceCounter() &- origin) / frequency }

    /// An event timestamp (SDL's 32-bit ms ticks, which wrap after 49.7 days) in seconds on
    /// the same clock, unwrapped against the 64-bit tick count now.
    static func seconds(fromEventTimestamp ms: UInt32, ticksNow: UInt64 = SDL_GetTicks64()) -> Double {
        let age = UInt32(truncatingIfNeeded: ticksNow) &- ms
        let ticks = ticksNow >= UInt64(age) ? ticksNow - UInt64(age) : 0
        return Double(ticks) / 1000
    }
}
