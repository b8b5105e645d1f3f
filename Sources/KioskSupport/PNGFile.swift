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

    /// Writes a pixmap to a PNG file through `OutputFile`: a regular or missing file is
    /// replaced atomically (temporary file in the same folder, fsync, rename); a device or FIFO
    /// is written as a stream; anything else is refused.
    public static func write(_ pixmap: Pixmap, to path: String) throws {
        let bytes = try PNG.encode(pixmap)
        do { try OutputFile.write(bytes, to: path, mode: 0o644) } catch {
            throw Failure(description: error.description)
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
