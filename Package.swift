// swift-tools-version:6.0
import PackageDescription

/// Hot pixel loops are written with wrapping arithmetic and unsafe buffers; the release
/// configuration additionally drops the remaining bounds/overflow checks in `Raster` only.
let rasterSettings: [SwiftSetting] = [
    .unsafeFlags(["-Ounchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "DarkModeKiosk",
    products: [
        .library(name: "Raster", targets: ["Raster"]),
        .library(name: "DarkModeToggle", targets: ["DarkModeToggle"]),
        .executable(name: "darkmode-kiosk", targets: ["darkmode-kiosk"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSDL2", pkgConfig: "sdl2",
            providers: [.apt(["libsdl2-dev"])]),
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        .target(name: "Raster", dependencies: ["CPNG"], swiftSettings: rasterSettings),
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        .target(name: "Text", dependencies: ["Raster", "CHarfBuzz", "CFreeType", "CFontconfig"]),
        .executableTarget(name: "text-probe", dependencies: ["Text", "Raster"]),
        .testTarget(name: "TextTests", dependencies: ["Text", "Raster", "CFreeType"]),
        .target(name: "DarkModeToggle", dependencies: ["Raster"]),
        .target(name: "Kiosk", dependencies: ["DarkModeToggle", "Raster"]),
        .target(name: "KioskSDL", dependencies: ["Kiosk", "CSDL2"]),
        .executableTarget(name: "darkmode-kiosk", dependencies: ["Kiosk", "KioskSDL"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster"], resources: [.copy("Goldens")]),
        .testTarget(name: "DarkModeToggleTests", dependencies: ["DarkModeToggle"], resources: [.copy("Goldens")]),
        .testTarget(name: "KioskTests", dependencies: ["Kiosk"], resources: [.copy("Traces")]),
        .testTarget(name: "KioskSDLTests", dependencies: ["KioskSDL"]),
        // Live appearance sources (issue 14): pure rules, then the sd-bus/inotify edge.
        .target(name: "Appearance"),
        .target(name: "AppearanceBus", dependencies: ["Appearance", "CSystemd"]),
        .testTarget(name: "AppearanceTests", dependencies: ["Appearance"]),
        .testTarget(name: "AppearanceBusTests", dependencies: ["AppearanceBus"], resources: [.copy("Mocks")]),
        // Kiosk-grade operation (issue 15): sd-daemon notify/watchdog/journal priorities, and a
        // coalescing background writer for preference saves.
        .target(name: "SystemdNotify", dependencies: ["CSystemd"]),
        .target(name: "CoalescingWriter"),
        .testTarget(name: "SystemdNotifyTests", dependencies: ["SystemdNotify"]),
        .testTarget(name: "CoalescingWriterTests", dependencies: ["CoalescingWriter"]),
    ]
)
