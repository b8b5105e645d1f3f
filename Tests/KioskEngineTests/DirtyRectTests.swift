import Raster
import Testing
@testable import KioskEngine

/// The page's changed rectangles: lanes draw them at once, so they must not overlap, and
/// near neighbours are drawn as one.
@Suite struct DirtyRectTests {
    @Test func disjointUnionMergesChainsOfOverlaps() {
        // a overlaps b, b overlaps c, c does not overlap a: one rectangle for all three.
        let a = IntRect(x: 0, y: 0, width: 10, height: 10), b = IntRect(x: 8, y: 8, width: 10, height: 10)
        let c = IntRect(x: 17, y: 0, width: 10, height: 9), far = IntRect(x: 100, y: 100, width: 5, height: 5)
        let out = IntRect.disjointUnion([a, far, c, b, .zero])
        #expect(out.count == 2)
        #expect(out.contains(far))
        #expect(out.contains(IntRect(x: 0, y: 0, width: 27, height: 18)))
        for i in out.indices { for j in out.indices where j > i { #expect(out[i].intersection(out[j]).isEmpty) } }
    }

    @Test func clusteringJoinsNearNeighboursOnly() {
        // Two 20×20 stars 4 px apart: their union adds 80 px, one rectangle.
        let s1 = IntRect(x: 0, y: 0, width: 20, height: 20), s2 = IntRect(x: 24, y: 0, width: 20, height: 20)
        #expect(IntRect.clustered([s1, s2]) == [IntRect(x: 0, y: 0, width: 44, height: 20)])
        // Far apart diagonally: the union would add far more than the slack; two rectangles.
        let s3 = IntRect(x: 300, y: 300, width: 20, height: 20)
        #expect(IntRect.clustered([s1, s3]).count == 2)
        #expect(IntRect.clustered([.zero, s1]) == [s1])
        // Every input pixel stays covered.
        let many = (0..<12).map { IntRect(x: ($0 * 37) % 200, y: ($0 * 53) % 150, width: 9 + $0, height: 7 + $0) }
        let out = IntRect.clustered(many)
        for r in many { #expect(out.contains { $0.contains(r) }, "\(r) not covered by \(out)") }
    }

    @Test func bandsCoverTheRectangleInOrder() {
        let r = IntRect(x: 3, y: 5, width: 40, height: 150)
        let bands = r.bands(rows: 64)
        #expect(bands.map(\.height) == [64, 64, 22])
        #expect(bands.allSatisfy { $0.minX == 3 && $0.width == 40 })
        #expect(bands.first?.minY == 5 && bands.last?.maxY == 155)
    }
}
