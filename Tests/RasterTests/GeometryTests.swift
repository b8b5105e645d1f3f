import Testing
@testable import Raster

@Suite struct GeometryTests {
    /// `roundedIn` keeps only whole pixels inside; `roundedOut` every pixel touched.
    @Test func roundedInAndOut() {
        let r = Rect(x: 2.25, y: 3.0, width: 10.5, height: 4.75)     // x 2.25…12.75, y 3…7.75
        #expect(r.roundedIn == IntRect(x: 3, y: 3, width: 9, height: 4))
        #expect(r.roundedOut == IntRect(x: 2, y: 3, width: 11, height: 5))
        #expect(Rect(x: 0.2, y: 0.2, width: 0.6, height: 5).roundedIn.isEmpty)
        #expect(Rect(x: -3.5, y: -1, width: 2, height: 1).roundedIn == IntRect(x: -3, y: -1, width: 1, height: 1))
    }

    /// `subtracting` leaves disjoint strips that, with the overlap, cover the rectangle exactly.
    @Test func subtractingLeavesDisjointStrips() {
        let r = IntRect(x: 0, y: 0, width: 20, height: 10)
        for o in [IntRect(x: 5, y: 3, width: 6, height: 4), IntRect(x: -5, y: -5, width: 10, height: 30),
                  IntRect(x: 15, y: 8, width: 10, height: 10), IntRect(x: 30, y: 30, width: 2, height: 2), r] {
            let strips = r.subtracting(o)
            var covered = Set<Int>()
            for s in strips + [r.intersection(o)] where !s.isEmpty {
                #expect(r.contains(s))
                for y in s.minY..<s.maxY { for x in s.minX..<s.maxX { #expect(covered.insert(y * 100 + x).inserted, "\(o): (\(x), \(y)) twice") } }
            }
            #expect(covered.count == r.area, "\(o): \(covered.count) of \(r.area) pixels")
            #expect(strips.allSatisfy { $0.intersection(o).isEmpty })
        }
    }
}
