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
}
