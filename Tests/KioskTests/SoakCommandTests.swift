import Testing
@testable import KioskTools
import KioskEngine
@testable import KioskSupport

/// `darkmode-kiosk soak --minutes N` is a subcommand like the others.
@Suite struct SoakCommandTests {
    @Test func parsesItsFlags() throws {
        var expected = SoakOptions()
        expected.minutes = 2.5
        expected.seed = 9
        expected.size = PixelSize(width: 640, height: 480)
        #expect(try CommandLineParser.parse(["soak", "--minutes", "2.5", "--seed=9", "--size", "640x480"]) == .soak(expected))
        #expect(try CommandLineParser.parse(["soak"]) == .soak(SoakOptions()))
    }

    @Test(arguments: [["soak", "--minutes", "0"], ["soak", "--minutes", "nan"], ["soak", "--minutes", "20000"],
                      ["soak", "--seed", "-1"], ["soak", "extra"]])
    func badInputIsUsageError(_ args: [String]) {
        #expect(throws: KioskError.self) { try CommandLineParser.parse(args) }
        do { _ = try CommandLineParser.parse(args) } catch { #expect(error.exitStatus == 2, "\(args): \(error)") }
    }
}
