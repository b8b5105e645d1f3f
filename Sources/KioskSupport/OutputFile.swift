#if canImport(Glibc)
import Glibc
#endif

/// Files the user names for output (`bench --json`, `render --out`): what is at the path decides
/// how it is written, so an output never replaces something that is not a plain file.
///
/// | at the path (`lstat`) | what happens |
/// |---|---|
/// | nothing, or a regular file | atomic replace (`AtomicFileWriter`: temporary file, fsync, rename) |
/// | a character device (`/dev/null`, `/dev/full`, a tty), a FIFO, a socket — or a symlink to one (`/dev/stdout` → a pipe or tty) | written in place as a stream: opened `O_WRONLY` without `O_CREAT`/`O_TRUNC`, never renamed over; a write error (ENOSPC on `/dev/full`, EPIPE) is a failure; a FIFO nobody reads fails at once (`ENXIO`) instead of hanging |
/// | a directory, a block device, a symlink to a regular file, directory or block device, a dangling or looping symlink | refused with a message naming what was found; nothing is written or renamed |
///
/// Symlinks to regular files are refused rather than followed: following one would replace a
/// file elsewhere (or rename over the link); give the file's own path instead.
public enum OutputFile {
    /// How `path` would be written, or why it is refused.
    public enum Disposition: Equatable, Sendable {
        case replaceAtomically
        case stream
        case refuse(String)
    }

    public static func disposition(of path: String) -> Disposition {
        guard let l = FileIO.lstatInfo(path) else { return .replaceAtomically }  // missing (or unreachable: the create reports it)
        switch l.st_mode & S_IFMT {
        case S_IFREG: return .replaceAtomically
        case S_IFCHR, S_IFIFO, S_IFSOCK: return .stream
        case S_IFLNK:
            guard let t = FileIO.statInfo(path) else {
                let e = errno
                return .refuse("it is a symbolic link that leads nowhere (\(FileIO.errorText(e)))")
            }
            switch t.st_mode & S_IFMT {
            case S_IFCHR, S_IFIFO, S_IFSOCK: return .stream
            default:
                return .refuse("it is a symbolic link to a \(FileIO.fileType(t.st_mode)); give the file's own path (links are never followed or replaced)")
            }
        default:
            return .refuse("it is a \(FileIO.fileType(l.st_mode)), expected a regular file, a device or a FIFO")
        }
    }

    /// Writes `bytes` to `path` following the table above. New regular files get `mode`
    /// (before the umask).
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(AtomicFileWriter.Failure) {
        switch disposition(of: path) {
        case .replaceAtomically:
            var w = AtomicFileWriter()
            w.newFileMode = mode
            try w.write(bytes, to: path)
        case .stream:
            try stream(bytes, to: path)
        case .refuse(let why):
            throw AtomicFileWriter.Failure(step: .refuse, path: path, reason: why)
        }
    }

    private static func stream(_ bytes: [UInt8], to path: String) throws(AtomicFileWriter.Failure) {
        let fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            let why = e == ENXIO ? "nothing is reading it (\(FileIO.errorText(e)))" : FileIO.errorText(e)
            throw AtomicFileWriter.Failure(step: .open, path: path, reason: why)
        }
        var st = stat()
        if fstat(fd, &st) != 0 || [S_IFREG, S_IFDIR, S_IFBLK].contains(st.st_mode & S_IFMT) {
            close(fd)  // replaced by a file since the check: refuse rather than overwrite in place
            throw AtomicFileWriter.Failure(step: .refuse, path: path, reason: "it changed into a \(FileIO.fileType(st.st_mode)) while being opened")
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(fd)
                throw AtomicFileWriter.Failure(step: .write, path: path, reason: FileIO.errorText(e))
            }
            written += n
        }
        if close(fd) != 0, errno != EINTR {
            throw AtomicFileWriter.Failure(step: .close, path: path, reason: FileIO.errorText(errno))
        }
    }
}
