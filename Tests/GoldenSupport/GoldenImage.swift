import Foundation
import Raster
import Testing

/// The golden-image check the test targets share: with `DARKMODE_UPDATE_GOLDENS=1` it writes
/// `image` as the golden (next to the test source, for committing); otherwise it compares it with
/// the golden copied into the test bundle.
///
/// Tolerance: ≤ 2/255 per channel and ≤ 0.5 % of pixels differing at all — Float accumulation
/// can move the last bit on other CPUs (e.g. aarch64 with FMA); anything visible fails.
/// Both sides go through the same PNG round trip (PNG stores straight alpha).
///
/// - Parameters:
///   - sourceFolder: the golden folder in the source tree (where updates are written).
///   - bundled: the golden's path in the test bundle, nil when it is not there yet.
public func expectMatchesGolden(_ image: Pixmap, file: String, sourceFolder: String, bundled: String?,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
    if ProcessInfo.processInfo.environment["DARKMODE_UPDATE_GOLDENS"] == "1" {
        try Data(PNG.encode(image)).write(to: URL(fileURLWithPath: sourceFolder).appendingPathComponent(file), options: .atomic)
        return
    }
    guard let bundled else {
        Issue.record("missing golden \(file): run with DARKMODE_UPDATE_GOLDENS=1 once and commit it", sourceLocation: sourceLocation)
        return
    }
    let golden = try PNG.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: bundled))))
    let ours = try PNG.decode(PNG.encode(image))
    #expect(golden.width == ours.width && golden.height == ours.height, sourceLocation: sourceLocation)
    var differing = 0, worst = 0
    for y in 0..<min(ours.height, golden.height) {
        for x in 0..<min(ours.width, golden.width) {
            let a = golden.color(x: x, y: y), b = ours.color(x: x, y: y)
            let d = max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a)))
            if d > 0 { differing += 1 }
            worst = max(worst, d)
        }
    }
    #expect(worst <= 2, "\(file): a channel differs by \(worst)/255", sourceLocation: sourceLocation)
    #expect(Double(differing) <= 0.005 * Double(ours.width * ours.height), "\(file): \(differing) pixels differ",
            sourceLocation: sourceLocation)
}
