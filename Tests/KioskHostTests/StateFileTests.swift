import Testing
import Glibc
import KioskEngine
import KioskSupport
@testable import KioskHost

/// The state for machines (`StateFile`, `HostFacts`): the devices tallied by name, the file's
/// JSON, and when it is written.
@Suite struct StateFileTests {
    static func facts() -> HostFacts {
        HostFacts(presenter: "drm (atomic, XRGB8888)", videoDriver: "evdev", card: .logind, input: .libinput,
                  outputWidth: 1024, outputHeight: 768, rotation: 90)
    }

    @Test func devicesAreTalliedByNameThroughReplugs() {
        var t = InputDeviceTally()
        t.added(id: 1, name: "panel")
        t.added(id: 2, name: "mouse")
        t.removed(id: 1)
        t.added(id: 3, name: "panel")           // the same panel plugged again: a new id
        t.removed(id: 99)                      // an id never added: nothing
        #expect(t.devices == [.init(name: "panel", opened: 2, open: 1), .init(name: "mouse", opened: 1, open: 1)])
        t.removed(id: 3)
        t.removed(id: 3)                       // removed twice: counted once
        #expect(t.devices[0] == .init(name: "panel", opened: 2, open: 0))
        t.added(id: 2, name: "mouse")          // an id added again without its removal
        #expect(t.devices[1] == .init(name: "mouse", opened: 2, open: 1))
    }

    @Test func theTextIsJSONWithEveryFact() throws {
        var f = Self.facts()
        f.display = .asleep
        f.framesPresented = 42
        f.inputDevices.added(id: 7, name: "dmk \"panel\"")
        let text = StateFile.text(page: .init(preference: .system, dark: true, source: "lightSensor"), facts: f)
        guard case .object(let o) = try StrictJSONParser.parse(text) else { Issue.record("not an object: \(text)"); return }
        #expect(o.keys == ["preference", "shown", "source", "display", "presenter", "videoDriver", "card", "input",
                           "output", "framesPresented", "inputDevices"])
        #expect(o["preference"]?.stringValue == "system" && o["shown"]?.stringValue == "dark")
        #expect(o["source"]?.stringValue == "lightSensor" && o["display"]?.stringValue == "asleep")
        #expect(o["card"]?.stringValue == "logind" && o["input"]?.stringValue == "libinput")
        #expect(o["output"]?.objectValue?["rotation"]?.doubleValue == 90 && o["framesPresented"]?.doubleValue == 42)
        let device = o["inputDevices"]?.arrayValue?.first?.objectValue
        #expect(device?["name"]?.stringValue == "dmk \"panel\"" && device?["opened"]?.doubleValue == 1)
        // Without our DRM presenter the card is null.
        var sdl = Self.facts()
        sdl.card = nil
        let t2 = StateFile.text(page: .init(preference: .light, dark: false, source: "preference"), facts: sdl)
        #expect(try StrictJSONParser.parse(t2).objectValue?["card"] == .null)
    }

    /// Written when what it says changes; the frame counter alone at most once a second (its
    /// write then due through `passEnded`); nothing when nothing changed.
    @Test func writtenOnChangesAndTheFrameCountAtMostOnceASecond() throws {
        var template = Array("/tmp/dmk-state-XXXXXX".utf8CString)
        let folder = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { _ = unlink(folder + "/state.json"); _ = rmdir(folder) }
        let path = folder + "/state.json"
        let file = StateFile(path: path)
        let app = KioskApp(options: KioskOptions(pixelWidth: 640, pixelHeight: 400), preference: .light)
        let placement = ScreenPlacement(viewport: Viewport(outputWidth: 640, outputHeight: 400, windowWidth: 640, windowHeight: 400,
                                                                           rotation: .none, scale: 1),
                                        windowX: 0, windowY: 0)
        func shown(_ f: HostFacts) { file.hostShown(f); file.pageShown(app: app, placement: placement) }
        func read() throws -> JSONObject {
            guard case .bytes(let bytes) = FileIO.readFile(at: path, limit: 1 << 16) else { throw StateFileMissing() }
            return try #require(try StrictJSONParser.parse(bytes).objectValue)
        }
        var f = Self.facts()
        #expect(file.passEnded() == nil)
        shown(f)
        #expect(try read()["shown"]?.stringValue == "light")
        #expect(file.passEnded() == nil, "nothing pending")
        f.framesPresented = 5
        shown(f)
        #expect(try read()["framesPresented"]?.doubleValue == 0, "the count alone waits for the second")
        let due = try #require(file.passEnded())
        #expect(due > 0 && due <= StateFile.frameCountInterval)
        f.display = .none
        shown(f)
        let now = try read()
        #expect(now["display"]?.stringValue == "none" && now["framesPresented"]?.doubleValue == 5, "a change is written at once, with the count")
        #expect(file.passEnded() == nil)
        // Nothing changed: the file is left alone (its inode stays).
        var before = stat(), after = stat()
        _ = stat(path, &before)
        shown(f)
        _ = stat(path, &after)
        #expect(before.st_ino == after.st_ino)
    }
}

private struct StateFileMissing: Error {}
