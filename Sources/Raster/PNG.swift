import CPNG
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// PNG files through libpng's simplified API (straight-alpha RGBA8 on disk).
public enum PNG {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Encodes a pixmap (unpremultiplying) into PNG bytes.
    public static func encode(_ pixmap: Pixmap) throws -> [UInt8] {
        var image = png_image()
        image.version = UInt32(CPNG_IMAGE_VERSION)
        image.width = UInt32(pixmap.width)
        image.height = UInt32(pixmap.height)
        image.format = CPNG_FORMAT_RGBA
        let rgba = pixmap.straightRGBABytes()
        var size: Int = 0
        // First call measures, second writes.
        let ok1 = rgba.withUnsafeBytes { buf in
            png_image_write_to_memory(&image, nil, &size, 0, buf.baseAddress, 0, nil)
        }
        guard ok1 != 0, size > 0 else { throw Failure(description: "PNG encoding failed: \(message(image))") }
        var out = [UInt8](repeating: 0, count: size)
        let ok2 = out.withUnsafeMutableBytes { dst in
            rgba.withUnsafeBytes { buf in
                png_image_write_to_memory(&image, dst.baseAddress, &size, 0, buf.baseAddress, 0, nil)
            }
        }
        guard ok2 != 0 else { throw Failure(description: "PNG encoding failed: \(message(image))") }
        png_image_free(&image)
        return Array(out.prefix(size))
    }

    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes PNG bytes of any colour type into a premultiplied pixmap.
    public static func decode(_ bytes: [UInt8]) throws -> Pixmap { try decode(bytes, maxPixels: nil) }

    /// Decodes PNG bytes as `decode(_:)` does; an image larger than `maxPixels` (width × height,
    /// read from the header), or wider or taller than `maxSide`, is refused before any pixel
    /// memory is allocated.
    public static func decode(_ bytes: [UInt8], maxPixels: Int?, maxSide: Int? = nil) throws -> Pixmap {
        var image = png_image()
        image.version = UInt32(CPNG_IMAGE_VERSION)
        let ok = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, bytes.count) }
        guard ok != 0 else { throw Failure(description: "not a readable PNG: \(message(image))") }
        defer { png_image_free(&image) }
        image.format = CPNG_FORMAT_RGBA
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w <= 1 << 15, h <= 1 << 15 else { throw Failure(description: "PNG size \(w)x\(h) out of range") }
        if let maxSide, w > maxSide || h > maxSide {
            throw Failure(description: "\(w)x\(h) pixels is larger than the limit of \(maxSide)x\(maxSide)")
        }
        if let maxPixels, w * h > maxPixels {
            throw Failure(description: "\(w)x\(h) pixels is \(w * h) pixels, more than the limit of \(maxPixels)")
        }
        // Straight RGBA straight into the pixmap's memory (R, G, B, A bytes, as the pixmap
        // stores them), then premultiplied in place: no second copy of the image.
        let pixmap = Pixmap(width: w, height: h)
        let ok2 = png_image_finish_read(&image, nil, UnsafeMutableRawPointer(pixmap.pixels), 0, nil)
        guard ok2 != 0 else { throw Failure(description: "PNG decoding failed: \(message(image))") }
        premultiplyInPlace(pixmap.pixels, count: w * h)
        return pixmap
    }

    /// Straight-alpha pixels (R, G, B, A bytes) → premultiplied, the same rounding as
    /// `StraightRGBA8.premultiplied`; opaque pixels are left as they are.
    static func premultiplyInPlace(_ p: UnsafeMutablePointer<UInt32>, count: Int) {
        for i in 0..<count {
            let v = p[i], a = v &>> 24
            if a == 255 { continue }
            let r = div255((v & 0xFF) &* a), g = div255(((v &>> 8) & 0xFF) &* a), b = div255(((v &>> 16) & 0xFF) &* a)
            p[i] = r | g &<< 8 | b &<< 16 | a &<< 24
        }
    }

    private static func message(_ image: png_image) -> String {
        var m = image.message
        return withUnsafeBytes(of: &m) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
