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
        .target(name: "Raster", dependencies: ["CPNG"], swiftSettings: rasterSettings),
        .target(name: "DarkModeToggle", dependencies: ["Raster"]),
        // The app engine: state, page layout, theme, cross-fade, dirty regions, overlay. Pure:
        // imports DarkModeToggle and Raster only (a test fails on Glibc/Foundation imports).
        .target(name: "KioskEngine", dependencies: ["DarkModeToggle", "Raster"]),
        // The edges: files, atomic writes, JSON, stderr, clocks, number formatting, PNG files.
        .target(name: "KioskSupport", dependencies: ["Raster"]),
        // The commands: CLI, config, preferences, render, replay, bench, soak.
        .target(name: "KioskTools", dependencies: ["KioskEngine", "KioskSupport", "DarkModeToggle", "Raster"]),
        .target(name: "KioskSDL", dependencies: ["KioskEngine", "KioskSupport", "CSDL2"]),
        .executableTarget(name: "darkmode-kiosk", dependencies: ["KioskTools", "KioskSupport", "KioskEngine", "KioskSDL"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster"], resources: [.copy("Goldens")]),
        .testTarget(name: "DarkModeToggleTests", dependencies: ["DarkModeToggle"], resources: [.copy("Goldens")]),
        .testTarget(name: "KioskTests", dependencies: ["KioskTools", "KioskEngine", "KioskSupport"], resources: [.copy("Traces")]),
        .testTarget(name: "KioskEngineTests", dependencies: ["KioskEngine"]),
        .testTarget(name: "KioskSDLTests", dependencies: ["KioskSDL", "KioskEngine"]),
    ]
)
