#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Raster

/// PNG files on disk. `Raster` keeps PNG bytes (encode/decode); reading and writing files is
/// the edges' business.
public enum PNGFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes a pixmap to a PNG file atomically: a temporary file in the same folder
    /// (exclusive create), fsync, then rename over the target.
    public static func write(_ pixmap: Pixmap, to path: String) throws {
        let bytes = try PNG.encode(pixmap)
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

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
