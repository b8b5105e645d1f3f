// swift-tools-version:6.0
import PackageDescription
import Foundation

/// Hot pixel loops are written with wrapping arithmetic and unsafe buffers; the release
/// configuration additionally drops the remaining bounds/overflow checks in `Raster` only.
/// Debug builds optimise `Raster` too: its SIMD kernels run generic element-by-element code
/// unoptimised (a debug replay of three taps took minutes), and tests must run those kernels.
let rasterSettings: [SwiftSetting] = [
    .unsafeFlags(["-Ounchecked"], .when(configuration: .release)),
    .unsafeFlags(["-O"], .when(configuration: .debug)),
]

/// The CPU the code is compiled for. A kiosk binary is built once and copied to boards, so by
/// default every target but `BuildCPU` (below) is compiled for a baseline of its architecture:
/// `x86-64-v2` on x86-64 (SSE4.2 and POPCNT: every x86-64 CPU since ~2009, QEMU's too) and
/// `generic` on arm64 (armv8-a with NEON, which has one vector width). A build for the building
/// machine alone (AVX2 on most x86 today: eight pixels per instruction, not four) is one
/// variable: `DARKMODE_KIOSK_CPU=native swift build -c release`; any other `-target-cpu` name
/// works too (`haswell`, `x86-64-v3`, `cortex-a72`). The paired bench of the two is in
/// README ("How it is built"). Tests and releases use the same setting, so the tests check
/// the code the kiosk runs.
let cpuSettings: [SwiftSetting] = {
    #if arch(x86_64)
    let byDefault: String? = "nehalem"
    #elseif arch(arm64)
    let byDefault: String? = "generic"
    #else
    let byDefault: String? = nil
    #endif
    let asked = Context.environment["DARKMODE_KIOSK_CPU"].flatMap { $0.isEmpty ? nil : $0 }
    guard let cpu = asked ?? byDefault else { return [] }
    // BuildCPUTests checks that a default build asks for nothing beyond the baseline.
    return [.unsafeFlags(["-target-cpu", cpu])] + (asked == nil ? [.define("DARKMODE_KIOSK_BASELINE_CPU")] : [])
}()

/// The second copy of the span kernels (`RasterAVX2`) is compiled for `haswell` (x86-64-v3:
/// AVX2, FMA, BMI1/2, F16C, MOVBE, LZCNT; this Swift has no x86-64-v3 name) whatever the
/// rest is compiled for (on x86-64; elsewhere it is the baseline again and never chosen), and
/// `RASTER_AVX2` leaves out the copy's own dispatch to itself.
let avx2Settings: [SwiftSetting] = {
    #if arch(x86_64)
    return [.unsafeFlags(["-target-cpu", "haswell"]), .define("RASTER_AVX2")]
    #else
    return [.define("RASTER_AVX2")]
    #endif
}()

/// The version, kept in one place: debian/changelog's first entry, `darkmode-kiosk (VERSION) …`,
/// without an epoch or a Debian revision. `darkmode-kiosk --version`, its man page and the .deb
/// all say it (Tests/KioskTests/VersionTests.swift compares them). debian/rules passes the
/// changelog's version in DARKMODE_KIOSK_VERSION: SwiftPM caches this manifest's evaluation
/// keyed on its text and environment, not on the files it reads, so the variable is what makes
/// a new changelog entry reach the build. A hand build after editing the changelog: `touch
/// Package.swift` (the version test says so when they differ).
let kioskVersion: String = {
    let given = Context.environment["DARKMODE_KIOSK_VERSION"].flatMap { $0.isEmpty ? nil : $0 }
    let path = Context.packageDirectory + "/debian/changelog"
    guard let version = given ?? changelogVersion(path) else {
        fatalError("\(path): no version in its first line (expected 'darkmode-kiosk (VERSION) ...')")
    }
    // It goes into a C string literal: only the characters of a Debian version.
    let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~-")
    guard version.allSatisfy({ allowed.contains($0) }), version.first?.isNumber == true else {
        fatalError("darkmode-kiosk version '\(version)' is not a Debian upstream version")
    }
    return version
}()

/// The upstream version of the changelog's first entry: "1:0.2.0-3" gives "0.2.0"; a native
/// version ("0.2.0", "0.2.0+ci1") is itself.
func changelogVersion(_ path: String) -> String? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
          let first = text.split(separator: "\n").first,
          let open = first.firstIndex(of: "("), let close = first.firstIndex(of: ")"), open < close else { return nil }
    var v = first[first.index(after: open)..<close]
    if let colon = v.firstIndex(of: ":") { v = v[v.index(after: colon)...] }
    if let dash = v.lastIndex(of: "-") { v = v[..<dash] }
    return v.isEmpty ? nil : String(v)
}

let package = Package(
    name: "DarkModeKiosk",
    products: [
        .library(name: "Raster", targets: ["Raster"]),
        .library(name: "DarkModeToggle", targets: ["DarkModeToggle"]),
        .executable(name: "darkmode-kiosk", targets: ["darkmode-kiosk"]),
    ],
    targets: [
        // Debian's C libraries (pkg-config).
        .systemLibrary(name: "CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CWayland", pkgConfig: "wayland-client", providers: [.apt(["libwayland-dev"])]),
        // KMS/DRM for the framebuffer presenter (dumb buffers, flips).
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        // Touch, tablets and mice on KMS/DRM (libinput with its udev backend).
        .systemLibrary(name: "CLibinput", pkgConfig: "libinput", providers: [.apt(["libinput-dev", "libudev-dev"])]),
        // MQTT for the fleet (issue 43): Debian's libmosquitto (MQTT 3.1.1 and 5, TLS through OpenSSL).
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // The instruction-set extensions a module is compiled for (compiler macros; a header only).
        .systemLibrary(name: "CBuildCPU"),
        // Non-temporal stores for the presented copy (a header only).
        .systemLibrary(name: "CStreamingStore"),
        // The version string (from debian/changelog, above); only the executable (and the
        // version test) depend on it, so a new version recompiles nothing else.
        .target(name: "CVersion", cSettings: [.define("DARKMODE_KIOSK_VERSION", to: "\"\(kioskVersion)\"")]),
        // The virtual terminal's KD mode (ioctl, which Swift cannot call; a header only).
        .systemLibrary(name: "CConsole"),
        // The default stack size of new threads (GNU pthread calls Swift's Glibc does not show; a header only).
        .systemLibrary(name: "CThreadDefaults"),

        // The rasterizer, text on top of it, and the component.
        .target(name: "Raster", dependencies: ["CPNG", "CStreamingStore", "CRasterCPU", "RasterAVX2"], swiftSettings: rasterSettings),
        // The span kernels' second copy: Sources/RasterAVX2/Blend.swift is a link to Raster's
        // Blend.swift, compiled for x86-64-v3; Raster's `Kernels` picks it at start on a CPU that
        // has AVX2 (see `avx2Settings`).
        .target(name: "RasterAVX2", swiftSettings: rasterSettings + avx2Settings),
        // Whether the CPU and OS run x86-64-v3 code (CPUID and XGETBV; a header only).
        .systemLibrary(name: "CRasterCPU"),
        .target(name: "Text", dependencies: ["Raster", "CHarfBuzz", "CFreeType", "CFontconfig"]),
        .target(name: "DarkModeToggle", dependencies: ["Raster"]),

        // Live system appearance: pure rules, then the sd-bus/inotify edge.
        .target(name: "Appearance"),
        // The one log: stderr lines with the program name and journald priorities (no dependencies;
        // compiled for any CPU, like `BuildCPU`, which reports through it).
        .target(name: "Log"),
        // JSON's string syntax for the writers of JSON text (the standard library only).
        .target(name: "JSONText"),
        // Log lines for causes that repeat, rate-limited per cause (pure; the standard library only).
        .target(name: "LogLimit"),
        // The one sd-bus layer: connections, method calls, replies and errors, signal matches,
        // served objects (the appearance sources, the accessibility provider and logind use it).
        .target(name: "SDBus", dependencies: ["CSystemd"]),
        .target(name: "AppearanceBus", dependencies: ["Appearance", "CSystemd", "SDBus", "LogLimit", "Threads"]),
        // Screen readers: the page's AT-SPI2 tree on the accessibility bus (sd-bus), on its own thread.
        .target(name: "AccessibilityBus", dependencies: ["KioskEngine", "CSystemd", "SDBus", "LogLimit", "Threads"]),

        // The fleet over MQTT: pure topics, payloads, state and discovery JSON, backoff (the
        // standard library only); then the libmosquitto client on its own poll() thread.
        .target(name: "Fleet", dependencies: ["JSONText"]),
        .target(name: "FleetMQTT", dependencies: ["Fleet", "CMosquitto", "COpenSSL", "Log", "LogLimit", "Threads"]),

        // The app engine: state, page layout, theme, cross-fade, dirty regions, overlay. Pure:
        // imports DarkModeToggle, Raster and the pure Appearance rules only (a test fails on Glibc/Foundation imports).
        .target(name: "KioskEngine", dependencies: ["DarkModeToggle", "Raster", "Appearance"]),
        // The edges: files, atomic writes, JSON, stderr, clocks, number formatting, PNG files.
        .target(name: "KioskSupport", dependencies: ["JSONText", "Log", "Raster", "Threads"]),
        // Operation under systemd: sd-daemon notify/watchdog/journal priorities, and a coalescing
        // background writer for preference saves.
        .target(name: "SystemdNotify", dependencies: ["CSystemd", "Log", "Threads"]),
        .target(name: "CoalescingWriter", dependencies: ["Threads"]),
        // pthreads for the writer and for frames drawn on more than one core.
        .target(name: "Threads", dependencies: ["CThreadDefaults"]),
        // The commands: CLI, config, preferences, render, replay, bench, soak.
        .target(name: "KioskTools", dependencies: ["Fleet", "KioskEngine", "KioskSupport", "Log", "DarkModeToggle", "Raster", "CoalescingWriter", "Threads", "Appearance", "Text"]),
        // The SDL2 host.
        .target(name: "KioskHost", dependencies: ["KioskEngine", "KioskSupport", "Log", "CSDL2", "CWayland", "CDRM", "CSystemd", "SDBus", "SystemdNotify", "Appearance", "AppearanceBus", "CConsole", "CLibinput", "Threads", "LogLimit"]),
        // Whether this machine has what the build was compiled for, checked first thing (compiled
        // for plain x86-64: see `cpuSettings`).
        .target(name: "BuildCPU", dependencies: ["Log"]),
        // Linked with the Swift runtime inside (standard library, Dispatch: /opt/swift is not on a
        // kiosk), so the binary runs wherever its Debian libraries are (the .deb's dependencies);
        // relro and bindnow as Debian hardens its binaries. Link flags only: the objects are the
        // same as without them (SwiftPM's --static-swift-stdlib would recompile every module).
        .executableTarget(name: "darkmode-kiosk", dependencies: ["Fleet", "FleetMQTT", "BuildCPU", "CBuildCPU", "CVersion", "KioskTools", "Raster", "KioskSupport", "KioskEngine", "KioskHost", "Log", "SystemdNotify", "Appearance", "AppearanceBus", "AccessibilityBus", "Text", "Threads", "LogLimit"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "-z", "-Xlinker", "relro", "-Xlinker", "-z", "-Xlinker", "now"])]),
        .executableTarget(name: "text-probe", dependencies: ["Text", "KioskSupport", "Raster"]),

        // The pre-optimisation kernels as test oracles: test-only, no code shared with Raster.
        .target(name: "RasterReference", path: "Tests/RasterReference"),
        // The golden-image check shared by the test targets (test-only).
        .target(name: "GoldenSupport", dependencies: ["Raster"], path: "Tests/GoldenSupport"),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "RasterAVX2", "RasterReference"], resources: [.copy("Goldens")]),
        .testTarget(name: "TextTests", dependencies: ["Text", "Raster", "CFreeType"]),
        .testTarget(name: "DarkModeToggleTests", dependencies: ["DarkModeToggle", "GoldenSupport"], resources: [.copy("Goldens")]),
        .testTarget(name: "AppearanceTests", dependencies: ["Appearance"]),
        .testTarget(name: "AppearanceBusTests", dependencies: ["AppearanceBus", "SDBus", "Threads"], resources: [.copy("Mocks")]),
        .testTarget(name: "SDBusTests", dependencies: ["SDBus", "CSystemd"]),
        .testTarget(name: "KioskTests", dependencies: ["Fleet", "BuildCPU", "CBuildCPU", "CVersion", "KioskTools", "KioskEngine", "KioskSupport", "Log", "Appearance", "Text", "GoldenSupport", "Threads", "CoalescingWriter"], resources: [.copy("Traces"), .copy("PageGoldens")]),
        .testTarget(name: "KioskEngineTests", dependencies: ["KioskEngine"]),
        .testTarget(name: "KioskHostTests", dependencies: ["KioskHost", "KioskEngine", "KioskSupport", "Appearance", "AppearanceBus", "Threads"]),
        .testTarget(name: "SystemdNotifyTests", dependencies: ["SystemdNotify", "Log", "Threads"]),
        .testTarget(name: "LogTests", dependencies: ["Log"]),
        .testTarget(name: "CoalescingWriterTests", dependencies: ["CoalescingWriter"]),
        .testTarget(name: "LogLimitTests", dependencies: ["LogLimit"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet"]),
        .testTarget(name: "ThreadsTests", dependencies: ["Threads"]),
        .testTarget(name: "AccessibilityBusTests", dependencies: ["AccessibilityBus", "KioskEngine", "KioskTools", "Text", "Raster", "DarkModeToggle"]),
    ]
)

// Every Swift target but `BuildCPU`, which must run on any CPU to say that this one is not the
// build's, and `Log`, which it says it through; and `RasterAVX2`, compiled for x86-64-v3 on purpose.
for target in package.targets where target.type != .system && !["BuildCPU", "Log", "RasterAVX2"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + cpuSettings
}
