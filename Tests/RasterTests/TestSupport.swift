import Foundation
@testable import Raster

/// A small deterministic generator (SplitMix64) so random tests are reproducible.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func range(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }
}

/// Coverage (0…255) of `path` per pixel, rendered by the rasterizer into a w×h grid.
func coverageGrid(_ path: Path, rule: FillRule = .nonZero, width: Int, height: Int,
                  tolerance: Double = Flattener.defaultTolerance) -> [UInt8] {
    var grid = [UInt8](repeating: 0, count: width * height)
    let r = Rasterizer()
    r.fill(path, rule: rule, clip: IntRect(x: 0, y: 0, width: width, height: height), tolerance: tolerance) { y, x, n, cov in
        for i in 0..<n { grid[y * width + x + i] = cov[i] }
    }
    return grid
}

func resourcePath(_ name: String) -> String? {
    Bundle.module.path(forResource: name, ofType: nil, inDirectory: "Goldens")
}

/// Where goldens live in the source tree (to regenerate them with DARKMODE_UPDATE_GOLDENS=1).
func sourceGoldenPath(_ name: String, file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Goldens/\(name)").path
}
