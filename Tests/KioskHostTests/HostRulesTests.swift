import CSDL2
import Glibc
import KioskEngine
import Raster
import Testing
@testable import KioskHost

/// The host's pure rules: how the loop ends (exit status and log line), what window and
/// display events do, when a touch gesture is cancelled.
@Suite struct HostRulesTests {
    @Test func quitWithoutSignalOrCloseIsALostDisplay() {
        #expect(HostExit.forQuit(signal: SIGTERM, windowCloseSeen: false, driver: "wayland") == .signal(SIGTERM))
        #expect(HostExit.forQuit(signal: SIGINT, windowCloseSeen: true, driver: "x11") == .signal(SIGINT))
        #expect(HostExit.forQuit(signal: 0, windowCloseSeen: true, driver: "x11") == .windowClosed)
        let lost = HostExit.forQuit(signal: 0, windowCloseSeen: false, driver: "wayland")
        #expect(lost == .displayLost(driver: "wayland"))
        #expect(lost.status == 1)
        #expect(lost.logLine?.contains("wayland") == true)
        #expect(lost.logLine?.contains("status 1") == true)
    }

    @Test func normalEndsExitZeroWithoutALogLine() {
        for e in [HostExit.signal(SIGTERM), .windowClosed, .escape] {
            #expect(e.status == 0)
            #expect(e.logLine == nil)
        }
        #expect(HostExit.failure("x").status == 1)
        #expect(HostExit.failure("the render device was lost").logLine == "the render device was lost; exiting with status 1")
    }

    @Test func windowEvents() {
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_SIZE_CHANGED.rawValue) == .relayout)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_RESIZED.rawValue) == .relayout)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_DISPLAY_CHANGED.rawValue) == .displayChanged)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_EXPOSED.rawValue) == .fullUpload)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_SHOWN.rawValue) == .fullUpload)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_RESTORED.rawValue) == .fullUpload)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_FOCUS_LOST.rawValue) == .cancelPointers)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_HIDDEN.rawValue) == .cancelPointers)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_MINIMIZED.rawValue) == .cancelPointers)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_CLOSE.rawValue) == .windowClosed)
        #expect(HostAction.forWindowEvent(SDL_WINDOWEVENT_MOVED.rawValue) == HostAction.none)
    }

    @Test func displayEvents() {
        #expect(HostAction.forDisplayEvent(SDL_DISPLAYEVENT_ORIENTATION.rawValue) == .displayChanged)
        #expect(HostAction.forDisplayEvent(SDL_DISPLAYEVENT_CONNECTED.rawValue) == .displayChanged)
        #expect(HostAction.forDisplayEvent(SDL_DISPLAYEVENT_DISCONNECTED.rawValue) == .displayChanged)
        #expect(HostAction.forDisplayEvent(SDL_DISPLAYEVENT_NONE.rawValue) == HostAction.none)
    }

    @Test func aGestureEndsWhenItsTouchDeviceGoesAway() {
        #expect(!HostAction.touchDeviceLost(activeTouchIDs: [], presentDevices: []))
        #expect(!HostAction.touchDeviceLost(activeTouchIDs: [7], presentDevices: [7, 9]))
        #expect(HostAction.touchDeviceLost(activeTouchIDs: [7], presentDevices: [9]))
        #expect(HostAction.touchDeviceLost(activeTouchIDs: [7, 9], presentDevices: [9]))
    }

    @Test func translatorReportsTheTouchDevicesInUse() {
        var t = PointerTranslator(touchMouseID: CSDL2_TOUCH_MOUSEID, mouseSynthesisesTouch: false)
        let v = Viewport(outputWidth: 100, outputHeight: 100, windowWidth: 100, windowHeight: 100, rotation: .none, scale: 1)
        #expect(t.activeTouchIDs.isEmpty)
        _ = t.translate(.finger(phase: .down, touchID: 5, fingerID: 1, x: 0.5, y: 0.5), timestamp: 0, viewport: v)
        _ = t.translate(.finger(phase: .down, touchID: 8, fingerID: 1, x: 0.2, y: 0.5), timestamp: 0, viewport: v)
        #expect(t.activeTouchIDs == [5, 8])
        _ = t.translate(.finger(phase: .up, touchID: 5, fingerID: 1, x: 0.5, y: 0.5), timestamp: 0.1, viewport: v)
        #expect(t.activeTouchIDs == [8])
    }
}

/// A presenter that records what it was asked to do.
final class RecordingPresenter: FramePresenter {
    let name = "recording"
    let vsync = false
    var uploads: [[IntRect]] = []
    var presents = 0
    var failNextPresent = false
    var failNextUpload = false
    var prepares = 0
    func outputSize() -> (width: Int, height: Int) { (10, 10) }
    func prepare(_ viewport: Viewport) -> Bool { prepares += 1; return true }
    func upload(_ rects: [IntRect], from frame: Pixmap, viewport: Viewport) -> Bool {
        uploads.append(rects)
        defer { failNextUpload = false }
        return !failNextUpload
    }
    func present(_ viewport: Viewport) -> Bool {
        presents += 1
        defer { failNextPresent = false }
        return !failNextPresent
    }
    func close() {}
}

@Suite struct ScreenUpdaterTests {
    static let viewport = Viewport(outputWidth: 10, outputHeight: 10, windowWidth: 10, windowHeight: 10, rotation: .none, scale: 1)

    @Test func oneFlagDecidesWholePageOrDirtyRectangles() {
        let p = RecordingPresenter()
        let screen = ScreenUpdater(presenter: p, viewport: Self.viewport)
        let frame = Pixmap(width: 10, height: 10)
        let small = IntRect(x: 1, y: 2, width: 3, height: 4)
        #expect(screen.needsFullUpload, "a new screen starts stale")
        #expect(screen.update(frame, dirty: [small]))
        #expect(p.uploads.last == [frame.bounds], "the first frame sends the whole page")
        #expect(!screen.needsFullUpload)
        #expect(screen.update(frame, dirty: [small]))
        #expect(p.uploads.last == [small])
        #expect(!screen.update(frame, dirty: []), "nothing dirty, nothing stale: nothing presented")
        #expect(p.presents == 2)
        // The presenter lost what it had (e.g. SDL dropped the window surface): whole page next.
        p.failNextPresent = true
        #expect(screen.update(frame, dirty: [small]))
        #expect(screen.needsFullUpload)
        #expect(screen.update(frame, dirty: []))
        #expect(p.uploads.last == [frame.bounds])
        // A failed upload likewise.
        p.failNextUpload = true
        #expect(screen.update(frame, dirty: [small]))
        #expect(screen.needsFullUpload)
        // An expose: the content is lost, the whole page goes again.
        #expect(screen.update(frame, dirty: []))
        screen.contentLost()
        #expect(screen.needsFullUpload)
        #expect(screen.update(frame, dirty: []))
        #expect(p.uploads.last == [frame.bounds])
    }

    @Test func appFramesGoOutBandByBandThenPresentOnce() {
        let p = RecordingPresenter()
        let screen = ScreenUpdater(presenter: p, viewport: Self.viewport)
        let app = KioskApp(options: KioskOptions(pixelWidth: 900, pixelHeight: 640), preference: .light)
        // Stale screen: the first frame is rendered whole and sent as the whole page.
        #expect(screen.render(app, at: 0))
        #expect(p.uploads == [[app.frame.bounds]] && p.presents == 1)
        // A cross-fade frame changes the whole page: sent in bands as they are drawn, then one present.
        _ = app.setDarkMode(true, at: 0.05)
        p.uploads = []
        #expect(screen.render(app, at: 0.2))
        #expect(p.presents == 2)
        #expect(p.uploads.count == (640 + KioskApp.presentBandRows - 1) / KioskApp.presentBandRows)
        #expect(p.uploads.allSatisfy { $0.count == 1 && $0[0].height <= KioskApp.presentBandRows && $0[0].width == 900 })
        #expect(p.uploads.reduce(0) { $0 + $1[0].area } == app.frame.bounds.area)
        // A failed band upload makes the next frame send the whole page.
        p.failNextUpload = true
        #expect(screen.render(app, at: 0.25))
        #expect(screen.needsFullUpload)
    }

    @Test func onlyANewGeometryPreparesThePresenterAgain() {
        let p = RecordingPresenter()
        let screen = ScreenUpdater(presenter: p, viewport: Self.viewport)
        _ = screen.update(Pixmap(width: 10, height: 10), dirty: [])
        #expect(screen.setViewport(Self.viewport, prepare: false))
        #expect(p.prepares == 0)
        #expect(screen.needsFullUpload)
        #expect(screen.setViewport(Self.viewport, prepare: true))
        #expect(p.prepares == 1)
    }
}
