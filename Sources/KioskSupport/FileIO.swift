#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers shared by the config, trace and preferences readers.
public enum FileIO {
    /// The outcome of reading a whole (small) file with a size limit.
    public enum ReadOutcome: Equatable, Sendable {
        case bytes([UInt8])
        /// No such file (ENOENT; a dangling symlink also lands here).
        case notFound
        /// The path names something other than a regular file.
        case notRegularFile(kind: String)
        /// Larger than the limit; `size` is at least `limit + 1`.
        case tooLarge(size: Int)
        /// open/read failed; `reason` is strerror's text.
        case failed(reason: String)
    }

    /// Reads the file at `path`, never more than `limit + 1` bytes, following symlinks.
    /// Opens with O_NONBLOCK so a FIFO cannot hang the caller, then refuses anything that is
    /// not a regular file.
    public static func readFile(at path: String, limit: Int) -> ReadOutcome {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            return e == ENOENT ? .notFound : .failed(reason: errorText(e))
        }
        defer { close(fd) }
        return readOpenFile(fd, limit: limit)
    }

    /// Reads an open descriptor as `readFile` does (refusing non-regular files, at most
    /// `limit + 1` bytes). The caller keeps ownership of `fd`.
    public static func readOpenFile(_ fd: Int32, limit: Int) -> ReadOutcome {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failed(reason: errorText(errno)) }
        guard fileType(st.st_mode) == "regular file" else { return .notRegularFile(kind: fileType(st.st_mode)) }
        if Int(st.st_size) > limit { return .tooLarge(size: Int(st.st_size)) }
        var out: [UInt8] = []
        out.reserveCapacity(Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while out.count <= limit {
            let want = min(chunk.count, limit + 1 - out.count)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(reason: errorText(errno))
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        if out.count > limit { return .tooLarge(size: out.count) }
        return .bytes(out)
    }

    /// A noun for the file type in `mode`: "regular file", "directory", "FIFO", …
    public static func fileType(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "regular file"
        case S_IFDIR: return "directory"
        case S_IFLNK: return "symbolic link"
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        default: return "special file"
        }
    }

    /// strerror's text for `code`, e.g. "No such file or directory".
    public static func errorText(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "error \(code)" }
        return String(cString: p)
    }

    /// `lstat` as an optional: nil when the path does not exist (or cannot be examined).
    public static func lstatInfo(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }

    /// `stat` (following symlinks) as an optional.
    public static func statInfo(_ path: String) -> stat? {
        var st = stat()
        return stat(path, &st) == 0 ? st : nil
    }

    /// The folder part of `path` ("." when there is none).
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// The last component of `path`.
    public static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `base` joined with `relative` unless `relative` is absolute.
    public static func join(_ base: String, _ relative: String) -> String {
        if relative.hasPrefix("/") { return relative }
        return base.hasSuffix("/") ? base + relative : base + "/" + relative
    }

    /// A compact UTC timestamp for file names, e.g. "20250131T235959Z".
    public static func utcTimestamp(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var tmv = tm()
        gmtime_r(&t, &tmv)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tmv.tm_year + 1900)\(two(tmv.tm_mon + 1))\(two(tmv.tm_mday))T\(two(tmv.tm_hour))\(two(tmv.tm_min))\(two(tmv.tm_sec))Z"
    }
}
