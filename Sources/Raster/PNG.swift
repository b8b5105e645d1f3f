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

    /// Decodes PNG bytes of any colour type into a premultiplied pixmap.
    public static func decode(_ bytes: [UInt8]) throws -> Pixmap {
        var image = png_image()
        image.version = UInt32(CPNG_IMAGE_VERSION)
        let ok = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, bytes.count) }
        guard ok != 0 else { throw Failure(description: "not a readable PNG: \(message(image))") }
        defer { png_image_free(&image) }
        image.format = CPNG_FORMAT_RGBA
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w <= 1 << 15, h <= 1 << 15 else { throw Failure(description: "PNG size \(w)x\(h) out of range") }
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        let ok2 = rgba.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        guard ok2 != 0 else { throw Failure(description: "PNG decoding failed: \(message(image))") }
        return Pixmap(width: w, height: h, straightRGBA: rgba)
    }

    /// Writes a pixmap to a PNG file atomically: a temporary file in the same folder
    /// (exclusive create), fsync, then rename over the target.
    public static func write(_ pixmap: Pixmap, to path: String) throws {
        let bytes = try encode(pixmap)
        let temp = path + ".tmp-\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot write \(path): \(errorText())") }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let why = errorText()
                close(fd); unlink(temp)
                throw Failure(description: "cannot write \(path): \(why)")
            }
            offset += n
        }
        guard fsync(fd) == 0, close(fd) == 0, rename(temp, path) == 0 else {
            let why = errorText()
            unlink(temp)
            throw Failure(description: "cannot write \(path): \(why)")
        }
    }

    /// Reads a PNG file (at most 256 MiB) into a premultiplied pixmap.
    public static func read(_ path: String) throws -> Pixmap {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "cannot read \(path): \(errorText())") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(description: "cannot read \(path): not a regular file")
        }
        let size = Int(st.st_size)
        guard size <= 256 << 20 else { throw Failure(description: "\(path): \(size) bytes is too large for a PNG here") }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, size - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "cannot read \(path): \(n == 0 ? "file shrank while reading" : errorText())") }
            offset += n
        }
        do { return try decode(bytes) } catch let f as Failure {
            throw Failure(description: "\(path): \(f.description)")
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    private static func message(_ image: png_image) -> String {
        var m = image.message
        return withUnsafeBytes(of: &m) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
