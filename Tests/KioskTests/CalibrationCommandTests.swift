import Testing
@testable import KioskTools
import KioskEngine
@testable import KioskSupport

/// `darkmode-kiosk calibrate`'s flags, its config write and its report.
@Suite struct CalibrationCommandTests {
    @Test func parsesItsFlags() throws {
        var expected = CalibrateOptions()
        expected.deviceName = "ADS7846 Touchscreen"
        expected.printResult = true
        expected.rotate = .clockwise90
        expected.configPath = "/tmp/k.json"
        #expect(try CommandLineParser.parse(["calibrate", "--device", "ADS7846 Touchscreen", "--print", "--rotate=90",
                                             "--config", "/tmp/k.json"]) == .calibrate(expected))
        #expect(try CommandLineParser.parse(["calibrate"]) == .calibrate(CalibrateOptions()))
        #expect(try CommandLineParser.parse(["calibrate", "--help"]) == .help(.calibrate))
    }

    @Test(arguments: [["calibrate", "--rotate", "45"], ["calibrate", "--device", ""], ["calibrate", "--device"],
                      ["calibrate", "--config", ""], ["calibrate", "extra"], ["calibrate", "--size", "10x10"],
                      ["calibrate", "--print", "--print"]])
    func badFlagsAreUsageErrors(_ args: [String]) {
        do {
            _ = try CommandLineParser.parse(args)
            Issue.record("\(args) parsed")
        } catch {
            #expect(error.exitStatus == 2, "\(args): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test func rotateNamesTheFlagAndTheValues() {
        do { _ = try CommandLineParser.parse(["calibrate", "--rotate", "45"]) } catch {
            #expect(error.message.contains("--rotate") && error.message.contains("45") && error.message.contains("0, 90, 180, 270"))
        }
    }

    static let matrix = CalibrationMatrix(0.0612345678, -1.04, 1, 0.97, 0.05, -0.0100000004)

    @Test func theWriteKeepsTheOtherKeysAndTheirOrder() throws {
        let folder = TempFolder()
        let path = folder.file("kiosk.json")
        writeText("""
        {
          "language": "zh-Hans",
          "input": { "calibration": null },
          "display": { "rotate": 90, "scale": 1.50 },
          "reduceMotion": true
        }
        """, to: path)
        try CalibrationConfigFile.write(Self.matrix, to: path)
        let root = try StrictJSONParser.parse(readText(path)!).objectValue!
        #expect(root.keys == ["language", "input", "display", "reduceMotion"])
        #expect(root["language"] == .string("zh-Hans"))
        #expect(root["display"]?.objectValue?["rotate"]?.doubleValue == 90)
        #expect(root["display"]?.objectValue?["scale"] == .number(JSONNumber(text: "1.50")!), "a number keeps its text")
        let input = root["input"]!.objectValue!
        #expect(input.keys == ["calibration"])
        let values = input["calibration"]!.arrayValue!.map { $0.doubleValue! }
        #expect(values == [0.061235, -1.04, 1, 0.97, 0.05, -0.01])
        // What `run` reads back.
        let config = try KioskConfig.load(path: path)
        #expect(config.input.calibration == CalibrationMatrix(0.061235, -1.04, 1, 0.97, 0.05, -0.01))
        #expect(folderEntries(folder.path) == ["kiosk.json"], "no temporary file left")
    }

    @Test func aMissingFileIsCreatedWithTheKeyAlone() throws {
        let folder = TempFolder()
        let path = folder.file("new.json")
        try CalibrationConfigFile.write(.identity, to: path)
        let root = try StrictJSONParser.parse(readText(path)!).objectValue!
        #expect(root.keys == ["input"])
        #expect(root["input"]?.objectValue?.keys == ["calibration"])
        #expect(try KioskConfig.load(path: path).input.calibration == .identity)
    }

    @Test(arguments: [("[1, 2]", "top level"), ("{\"input\": 3}", "input"), ("{nope", "not valid JSON"),
                      ("{\"rotate\": 90}", "unknown key \"rotate\""), ("{\"input\": {\"calibration\": [1, 2]}}", "input.calibration")])
    func aFileThatCannotTakeTheKeyIsRefusedBeforeTheRound(_ text: String, _ phrase: String) {
        let folder = TempFolder()
        let path = folder.file("bad.json")
        writeText(text, to: path)
        do {
            _ = try CalibrationConfigFile.check(path: path)
            Issue.record("\(text) accepted")
        } catch {
            #expect(error.exitStatus == 2)
            #expect(error.message.contains(path) && error.message.contains(phrase), "\(error.message)")
        }
        #expect(readText(path) == text, "the file is left as it was")
    }

    @Test func aFolderThatDoesNotExistIsRefusedBeforeTheRound() {
        let folder = TempFolder()
        let path = folder.file("missing/kiosk.json")
        do { _ = try CalibrationConfigFile.check(path: path); Issue.record("a missing folder accepted") } catch {
            #expect(error.exitStatus == 2)
            #expect(error.message.contains(folder.file("missing")) && error.message.contains("No such file"), "\(error.message)")
        }
    }

    @Test func aFolderIsRefused() {
        let folder = TempFolder()
        do { _ = try CalibrationConfigFile.check(path: folder.path); Issue.record("a folder accepted") } catch {
            #expect(error.message.contains("directory"), "\(error.message)")
        }
    }

    @Test func theReportSaysTheMatrixTheErrorAndTheUdevRule() {
        let result = CalibrationResult(matrix: Self.matrix, checkErrorPixels: 0.44, samples: [], restarts: 1)
        let report = CalibrationReport(result: result, deviceName: "Panel \"A\"", configPath: "/etc/k.json", rotation: .clockwise90)
        #expect(report.summary == "calibration of \"Panel \"A\"\": [0.061235, -1.04, 1, 0.97, 0.05, -0.01]; check point off by 0.4 px "
                + "(after 1 refused round); targets shown with --rotate 90")
        #expect(report.written?.contains("/etc/k.json") == true)
        #expect(report.printed[0] == "\"input\": { \"calibration\": [0.061235, -1.04, 1, 0.97, 0.05, -0.01] }")
        #expect(report.printed[1] == "ACTION==\"add|change\", KERNEL==\"event*\", ATTRS{name}==\"Panel \\\"A\\\"\", "
                + "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"0.061235 -1.04 1 0.97 0.05 -0.01\"")
        #expect(report.printed[2].contains("under cage applies the config's on top of the rule's"), "\(report.printed[2])")
    }

    /// Measured under a compositor: the matrix and where it went, but no udev rule (it maps the
    /// touch after the compositor's own calibration), and the lines say so.
    @Test func underACompositorTheReportGivesNoUdevRule() {
        let result = CalibrationResult(matrix: Self.matrix, checkErrorPixels: 0.44, samples: [], restarts: 0)
        let report = CalibrationReport(result: result, deviceName: "wayland_touch", configPath: "/run/k.json", rotation: .none,
                                       underCompositor: true)
        #expect(report.summary == "calibration of the compositor's touch (SDL's \"wayland_touch\"): "
                + "[0.061235, -1.04, 1, 0.97, 0.05, -0.01]; check point off by 0.4 px")
        #expect(report.written == "written to /run/k.json (input.calibration); the kiosk applies it at its next start, "
                + "to touch, on top of the compositor's own calibration")
        #expect(report.printed.count == 2)
        #expect(report.printed[0] == "\"input\": { \"calibration\": [0.061235, -1.04, 1, 0.97, 0.05, -0.01] }")
        #expect(!report.printed.contains { $0.contains("ATTRS{name}") })
        #expect(report.printed[1].contains("so it is no udev rule"), "\(report.printed[1])")
    }
}
