import CStreamingStore

/// Copies into memory this process hands on and does not read again soon: the presenter's
/// buffer (an SDL window surface, a Wayland shared-memory buffer, the bench's presented frame).
///
/// A page redraw copies the whole page out every frame (8 MB at 1920x1080). With ordinary
/// stores every destination line is first read into the cache and then evicts something the
/// next frame needs (the page frame, the toggles' sprites); with non-temporal stores the
/// pixels go towards memory past the caches. Only large rectangles stream: a small one (a
/// twinkling star, a dragged thumb) is copied every frame at the same place, its lines stay
/// cached, and streaming them would push them out to memory each time.
///
/// Measured (`bench`, 1920x1080 at 2x, a local build that timed each part of the frame, one
/// thread): the copy of a cross-fading frame 0.53-0.57 ms with ordinary stores, 0.30-0.32 ms
/// streamed. Ten interleaved pairs against the build before, two threads (paired medians):
/// `theme` p50 0.86 and p99 0.82, `tap` p50 0.96 (its small frames do not stream) and p99 0.80.
/// Streaming every rectangle instead: `theme` p50 1.12, `tap` p50 1.26.
public enum StreamingCopy {
    /// Rectangles of at least this many pixels stream: a band of a full-width page
    /// (`KioskApp.presentBandRows` rows of 1920: 122 880) does; a toggle's changed rectangle
    /// while it drags, twinkles or drifts (40 000-85 000 at 1920x1080 at 2x) does not.
    public static let minPixels = 100_000

    /// Copies `count` pixels from `src` to `dst` (not overlapping) with non-temporal stores,
    /// red and blue swapped when `swappingRedBlue` (our R, G, B, A bytes to B, G, R, A).
    /// Call `fence()` before the pixels are handed on.
    @inlinable
    public static func row(_ dst: UnsafeMutablePointer<UInt32>, from src: UnsafePointer<UInt32>, count: Int,
                           swappingRedBlue: Bool = false) {
        darkmode_kiosk_stream_row(dst, src, count, swappingRedBlue ? 1 : 0)
    }

    /// Makes the streamed pixels visible to every later reader (another thread, the display
    /// server).
    @inlinable
    public static func fence() { darkmode_kiosk_stream_fence() }
}

extension Pixmap {
    /// As `copy(_:from:)`, for a destination handed on as the presented frame: a rectangle of
    /// at least `StreamingCopy.minPixels` pixels is written with non-temporal stores and fenced.
    public func presentCopy(_ rect: IntRect, from src: Pixmap) {
        let r = rect.intersection(bounds).intersection(src.bounds)
        guard r.area >= StreamingCopy.minPixels else { return copy(r, from: src) }
        for y in r.minY..<r.maxY {
            StreamingCopy.row(pixels + y * stride + r.minX, from: src.pixels + y * src.stride + r.minX, count: r.width)
        }
        StreamingCopy.fence()
    }
}
