import CSDL2
import Glibc
import KioskEngine
import Raster
import Testing
import KioskSupport
@testable import KioskHost

/// The window-surface presenter under SDL's dummy video driver (no display needed): it writes
/// exactly the uploaded rectangles, converting our R,G,B,A bytes into the surface's format.
@Suite(.serialized) struct SurfacePresenterTests {
    static func withDummyWindow(width: Int32, height: Int32, _ body: (OpaquePointer) throws -> Void) throws {
        setenv("SDL_VIDEODRIVER", "dummy", 1)
        try #require(SDL_Init(SDL_INIT_VIDEO) == 0, "SDL_Init: \(String(cString: SDL_GetError()))")
        defer { SDL_Quit() }
        let window = try #require(SDL_CreateWindow("test", 0, 0, width, height, SDL_WINDOW_HIDDEN.rawValue))
        defer { SDL_DestroyWindow(window) }
        try body(window)
    }

    /// The surface pixel at (x, y) as R,G,B (converted back from the surface's format).
    static func surfaceRGB(_ window: OpaquePointer, _ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let s = SDL_GetWindowSurface(window)!.pointee
        var out: UInt32 = 0
        let src = s.pixels! + y * Int(s.pitch) + x * Int(s.format.pointee.BytesPerPixel)
        _ = SDL_ConvertPixels(1, 1, s.format.pointee.format, src, s.pitch, CSDL2_PIXELFORMAT_RGBA32, &out, 4)
        return withUnsafeBytes(of: &out) { ($0[0], $0[1], $0[2]) }
    }

    @Test func uploadsOnlyTheDirtyRectangle() throws {
        try Self.withDummyWindow(width: 40, height: 30) { window in
            let presenter = try #require(SurfacePresenter(window: window))
            let viewport = Viewport(outputWidth: 40, outputHeight: 30, windowWidth: 40, windowHeight: 30, rotation: .none, scale: 1)
            #expect(presenter.prepare(viewport))
            let frame = Pixmap(width: 40, height: 30)
            frame.fill(frame.bounds, with: Color(r255: 10, g255: 20, b255: 30).premultiplied8.packed)
            #expect(presenter.upload([frame.bounds], from: frame, viewport: viewport))
            #expect(presenter.present(viewport))
            frame.fill(frame.bounds, with: Color(r255: 200, g255: 100, b255: 50).premultiplied8.packed)
            #expect(presenter.upload([IntRect(x: 5, y: 6, width: 7, height: 8)], from: frame, viewport: viewport))
            #expect(presenter.present(viewport))
            let inside = Self.surfaceRGB(window, 5, 6), inside2 = Self.surfaceRGB(window, 11, 13)
            let outside = Self.surfaceRGB(window, 12, 6), below = Self.surfaceRGB(window, 5, 14)
            #expect(inside == (200, 100, 50) && inside2 == (200, 100, 50))
            #expect(outside == (10, 20, 30) && below == (10, 20, 30))
        }
    }

    @Test func rotatesIntoTheOutput() throws {
        // A 30x40 page turned 90° clockwise onto a 40x30 output: page (0, 0) lands top right.
        try Self.withDummyWindow(width: 40, height: 30) { window in
            let presenter = try #require(SurfacePresenter(window: window))
            let viewport = Viewport(outputWidth: 40, outputHeight: 30, windowWidth: 40, windowHeight: 30,
                                    rotation: .clockwise90, scale: 1)
            #expect(presenter.prepare(viewport))
            let frame = Pixmap(width: viewport.pagePixelWidth, height: viewport.pagePixelHeight)
            frame.fill(frame.bounds, with: Color(r255: 0, g255: 0, b255: 0).premultiplied8.packed)
            frame.fill(IntRect(x: 0, y: 0, width: 1, height: 1), with: Color(r255: 255, g255: 0, b255: 0).premultiplied8.packed)
            #expect(presenter.upload([frame.bounds], from: frame, viewport: viewport))
            #expect(presenter.present(viewport))
            #expect(Self.surfaceRGB(window, 39, 0) == (255, 0, 0))
            #expect(Self.surfaceRGB(window, 0, 0) == (0, 0, 0))
        }
    }
}

/// The whole host under SDL's dummy driver (in the serialized suite: one SDL at a time):
/// custom events reach their handler on the loop thread, a pushed size change re-lays out the
/// page, a display event is survived, and an SDL_QUIT that no signal explains ends with status 1.
final class ScriptedHandler: HostEventHandler {
    var poster: HostEventPoster?
    var log: [String] = []
    var sizes: [(Int, Int)] = []
    let loopThread = pthread_self()
    var onLoopThread = true
    /// The wake-ups handled so far (each step posts the next).
    var step = 0

    func start(app: KioskApp, poster: HostEventPoster, now: Double) {
        self.poster = poster
        log.append("start")
        sizes.append((app.frame.width, app.frame.height))
        poster.wake()
    }

    func handle(app: KioskApp, now: Double) {
        onLoopThread = onLoopThread && pthread_equal(pthread_self(), loopThread) != 0
        step += 1
        log.append("event \(step)")
        switch step {
        case 1:
            // Resize the window and tell the loop as a window manager would, then a display event.
            let window = SDL_GetWindowFromID(1)
            SDL_SetWindowSize(window, 200, 120)
            var e = SDL_Event()
            e.type = SDL_WINDOWEVENT.rawValue
            e.window.event = UInt8(SDL_WINDOWEVENT_SIZE_CHANGED.rawValue)
            e.window.windowID = 1
            e.window.data1 = 200
            e.window.data2 = 120
            SDL_PushEvent(&e)
            var d = SDL_Event()
            d.type = SDL_DISPLAYEVENT.rawValue
            d.display.event = UInt8(SDL_DISPLAYEVENT_ORIENTATION.rawValue)
            SDL_PushEvent(&d)
            poster?.wake()
        case 2:
            sizes.append((app.frame.width, app.frame.height))
            var q = SDL_Event()
            q.type = SDL_QUIT.rawValue
            SDL_PushEvent(&q)
        default:
            break
        }
    }

    func stop() { log.append("stop") }
}

extension SurfacePresenterTests {
    /// What `main` passes down when SDL_VIDEODRIVER=dummy is set (SDL reads the variable
    /// itself; the host's settings come from the one parse).
    static var dummyDriver: HostEnvironment {
        var e = HostEnvironment()
        e.videoDriver = "dummy"
        return e
    }

    @Test func hostDispatchesCustomEventsReLaysOutAndReportsALostDisplay() {
        setenv("SDL_VIDEODRIVER", "dummy", 1)
        let handler = ScriptedHandler()
        var commits = 0
        let status = SDLHost.run(HostOptions(windowed: true, size: PixelSize(width: 320, height: 200), environment: Self.dummyDriver), makeApp: { page in
            KioskApp(options: KioskOptions(pixelWidth: page.pixelWidth, pixelHeight: page.pixelHeight, scale: page.scale),
                     isDarkMode: false)
        }, onCommit: { _ in commits += 1 }, eventHandler: handler)
        #expect(handler.log == ["start", "event 1", "event 2", "stop"])
        #expect(handler.onLoopThread)
        #expect(handler.sizes.count == 2)
        #expect(handler.sizes.first.map { $0 == (320, 200) } == true)
        #expect(handler.sizes.last.map { $0 == (200, 120) } == true, "re-laid out for the new window size")
        #expect(status == 1, "SDL_QUIT without a signal or window close: display lost")
        #expect(commits == 0)
    }

    /// A source that has something new every time the loop looks (an input reader posts a
    /// wake-up per batch while a panel spews, Tests/vm's hostile_devices) must not keep the loop
    /// from drawing: the page changed at the first wake-up is presented within a pass or two, not
    /// when the flood ends. The pass's `while SDL_PollEvent` ends at the poll sentinel SDL 2.26
    /// queues behind what one pump found, so what is posted while it runs waits for the next pass.
    @Test func aFloodOfWakeUpsDoesNotHoldBackTheFrame() {
        setenv("SDL_VIDEODRIVER", "dummy", 1)
        final class Flood: HostEventHandler {
            static let wakeUps = 2_000
            var poster: HostEventPoster?
            var handled = 0
            /// `handled` when the first frame after the change was presented.
            var presentedAfter: Int?
            func start(app: KioskApp, poster: HostEventPoster, now: Double) {
                self.poster = poster
                poster.wake()
            }
            func handle(app: KioskApp, now: Double) {
                handled += 1
                if handled == 1 { _ = app.setDarkMode(true, at: now) }
                if handled < Self.wakeUps {
                    poster?.wake()      // the next batch is already there
                } else {
                    var q = SDL_Event(); q.type = SDL_QUIT.rawValue; SDL_PushEvent(&q)
                }
            }
            func framePresented() {
                if handled >= 1, presentedAfter == nil { presentedAfter = handled }
            }
            func stop() {}
        }
        let flood = Flood()
        let status = SDLHost.run(HostOptions(windowed: true, size: PixelSize(width: 64, height: 48), environment: Self.dummyDriver), makeApp: { page in
            KioskApp(options: KioskOptions(pixelWidth: page.pixelWidth, pixelHeight: page.pixelHeight, scale: page.scale),
                     isDarkMode: false)
        }, eventHandler: flood)
        #expect(status == 1)
        #expect(flood.handled == Flood.wakeUps)
        #expect(flood.presentedAfter.map { $0 <= 3 } == true,
                "the changed page was presented after \(flood.presentedAfter.map(String.init) ?? "none") of \(Flood.wakeUps) wake-ups")
    }

    @Test func theHostLeavesTheSignalHandlersAsItFoundThem() {
        setenv("SDL_VIDEODRIVER", "dummy", 1)
        func handlers() -> [Int] {
            [SIGTERM, SIGINT].map { sig in
                var old = sigaction()
                sigaction(sig, nil, &old)
                return unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self)
            }
        }
        final class Quitter: HostEventHandler {
            var during: [Int] = []
            let read: () -> [Int]
            init(read: @escaping () -> [Int]) { self.read = read }
            func start(app: KioskApp, poster: HostEventPoster, now: Double) { poster.wake() }
            func handle(app: KioskApp, now: Double) {
                during = read()
                var q = SDL_Event(); q.type = SDL_QUIT.rawValue; SDL_PushEvent(&q)
            }
            func stop() {}
        }
        let before = handlers()
        let q = Quitter(read: handlers)
        let status = SDLHost.run(HostOptions(windowed: true, size: PixelSize(width: 64, height: 48), environment: Self.dummyDriver), makeApp: { page in
            KioskApp(options: KioskOptions(pixelWidth: page.pixelWidth, pixelHeight: page.pixelHeight, scale: page.scale),
                     isDarkMode: false)
        }, eventHandler: q)
        #expect(status == 1)
        #expect(q.during.count == 2 && q.during != before, "SDL's handlers (with the recorder) while running")
        #expect(handlers() == before, "restored after the host returns")
    }
}
