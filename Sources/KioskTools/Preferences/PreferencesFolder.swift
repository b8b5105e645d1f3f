#if canImport(Glibc)
import Glibc
#endif
import KioskSupport

/// The preferences folder, held by descriptor from start (issue #32, item 10).
///
/// At start the folder is opened as the configured path names it — a symbolic link anywhere
/// in that path is the administrator's setup, like the config file itself — and from then on
/// every read and save works relative to that descriptor. Before each operation the path is
/// checked against it:
///
/// - the path still leads to the held folder (same device and inode): it is used;
/// - the path now names a **real folder** (not a link) that is another one — the folder was
///   removed and made again, or renamed away and replaced (item 5) — it is opened with
///   `O_DIRECTORY|O_NOFOLLOW`, checked again with `fstat`, and held from then on;
/// - the path now names a **symbolic link** that does not lead to the held folder (the folder
///   swapped for a link while the kiosk runs): refused, nothing is read or written there;
/// - nothing is there: `missing` (a save then creates the folder, mode 0700, and holds it).
///
/// Why hold rather than only check before each save: a check by path and a later use by path
/// leave a window in which the folder can be swapped; opening once and using the descriptor
/// leaves none, and a folder that has to be adopted again is opened with `O_NOFOLLOW` and
/// verified on the descriptor itself. Links higher up the path are followed by that lookup as
/// by any other (only the folder itself is checked).
final class PreferencesFolder {
    let path: String
    private var fd: Int32 = -1
    private var device: UInt64 = 0
    private var inode: UInt64 = 0

    /// The folder for one operation.
    enum Resolution: Equatable {
        /// The held folder's descriptor (owned by this object: do not close it).
        case open(Int32)
        /// No folder at the path.
        case missing
        /// The path names something that is not used; the phrase says what and why.
        case refused(String)
        /// The path could not be examined or opened (errno).
        case failed(Int32)
    }

    /// Opens the folder as the path names it now (when it exists).
    init(path: String) {
        self.path = path
        let dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { hold(dfd) }
    }

    deinit { if fd >= 0 { close(fd) } }

    private func hold(_ dfd: Int32) {
        var st = stat()
        guard fstat(dfd, &st) == 0 else { close(dfd); return }
        if fd >= 0 { close(fd) }
        fd = dfd
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    /// The folder to use now (see the type's comment).
    func resolve() -> Resolution {
        var st = stat()
        if fd >= 0, stat(path, &st) == 0, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode {
            return .open(fd)
        }
        guard lstat(path, &st) == 0 else {
            let e = errno
            return e == ENOENT ? .missing : .failed(e)
        }
        switch st.st_mode & S_IFMT {
        case S_IFLNK:
            return .refused(linkPhrase())
        case S_IFDIR:
            break
        default:
            return .failed(ENOTDIR)
        }
        let dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dfd >= 0 else {
            let e = errno
            if e == ELOOP || e == ENOTDIR { return .refused(linkPhrase()) }
            return e == ENOENT ? .missing : .failed(e)
        }
        hold(dfd)
        return fd >= 0 ? .open(fd) : .failed(EBADF)
    }

    private func linkPhrase() -> String {
        var buf = [CChar](repeating: 0, count: 4097)
        let n = readlink(path, &buf, 4096)
        let target = n >= 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        return "the folder \(path) was replaced by a symbolic link to \(target) while the kiosk ran "
            + "(a folder swapped for a link is not followed; restart the kiosk to use a new location)"
    }
}
