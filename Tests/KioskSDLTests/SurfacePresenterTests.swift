import CSDL2
import Glibc
import KioskEngine
import Raster
import Testing
@testable import KioskSDL

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
