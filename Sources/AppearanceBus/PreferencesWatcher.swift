import CSystemd
import Glibc

/// Watches the preferences file's folder with inotify for the file being renamed into place
/// (IN_MOVED_TO: atomic replacement, as config-management tools and the kiosk itself write)
/// or written in place (IN_CLOSE_WRITE), and decides whether what is there now is a change.
///
/// Reads are as careful as the store's writes (issue #32, items 1 and 6): the folder is held
/// by descriptor and the file is examined with `fstatat(…, AT_SYMLINK_NOFOLLOW)` and opened
/// with `openat(folder, name, O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC)`, then `fstat` again:
/// anything but a regular file (a symlink wherever it points, a FIFO, a socket, a device) is
/// never opened or read, so a FIFO cannot block the runner thread and nothing outside the
/// folder is read. At most `sizeLimit` + 1 bytes are read (the store refuses larger files too).
/// A non-regular or too-large entry still counts as a change: the host re-reads the file as at
/// start, which keeps the bad entry aside and says what it was.
///
/// The folder itself is followed (item 5): when it is deleted or renamed away (IN_DELETE_SELF,
/// IN_MOVE_SELF, IN_IGNORED) the watch is dropped, and a watch on its parent (IN_CREATE,
/// IN_MOVED_TO of the folder's name) notices a new folder at the same path, which is then held
/// and watched; each step is one log line. A symbolic link put in the folder's place is not
/// followed (item 10; the store refuses to save through it as well).
final class PreferencesWatcher {
    /// Largest file read; larger ones are a change that the host's load refuses ("too large").
    /// The same limit as `PreferencesStore.sizeLimit` (the real file is ~30 bytes).
    static let sizeLimit = 64 * 1024

    let path: String
    let folder: String
    let fileName: String
    /// The folder's parent and the folder's name in it; nil when the folder has no name to
    /// watch for ("/", ".", "..").
    let parent: String?
    let folderName: String
    /// The inotify descriptor (polled by the runner).
    private(set) var fd: Int32 = -1
    /// The folder being watched, held open; -1 while it is gone.
    private var folderFD: Int32 = -1
    private var folderWatch: Int32 = -1
    private var parentWatch: Int32 = -1
    private var lastSeen = Snapshot(content: .missing, device: 0, inode: 0)
    /// What the folder was at the last log line, so each state is said once.
    private var folderState = FolderState.watching

    enum FolderState: Equatable { case watching, missing, link, other }

    /// What is at the file's name, examined without following links or blocking.
    struct Snapshot: Equatable {
        enum Content: Equatable {
            case missing
            case bytes([UInt8])
            case tooLarge
            case notRegular(String)
            case unreadable(Int32)
        }
        var content: Content
        var device: UInt64
        var inode: UInt64

        /// True when `other` is something new: other bytes, or another non-regular entry.
        func differs(from other: Snapshot) -> Bool {
            if content != other.content { return true }
            if case .bytes = content { return false }
            if case .missing = content { return false }
            return device != other.device || inode != other.inode
        }
    }

    /// What `drain` found.
    struct Drained {
        /// An event named the file.
        var file = false
        /// The folder went away or a folder with its name appeared in the parent.
        var folder = false
        /// Anything happened in the folder, to the folder itself (its mode: IN_ATTRIB) or to
        /// its name in the parent, except the kiosk's own temporary files: a save waiting for
        /// its retry may succeed now (issue 39, item 3).
        var activity = false
    }

    /// The store's temporary files (`.<name>.tmp-…`): its own attempts are no news.
    var ownTemporaryPrefix: String { ".\(fileName).tmp-" }

    init(path: String) {
        self.path = path
        (folder, fileName) = Self.split(path)
        let (p, name) = Self.split(folder)
        folderName = name
        parent = (name.isEmpty || name == "." || name == ".." || folder == "/") ? nil : p
    }

    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let f = String(path[..<slash])
        return (f.isEmpty ? "/" : f, String(path[path.index(after: slash)...]))
    }

    /// Starts watching; returns a log line on failure (and when only the parent is watched).
    /// The folder is opened as the path names it at start (a link configured there is the
    /// administrator's choice); afterwards it is held by descriptor.
    func open() -> String? {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return "preferences watcher: inotify_init1 failed: \(String(cString: strerror(errno)))" }
        if let parent {
            parentWatch = inotify_add_watch(fd, parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR))
        }
        let dfd = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0, watch(dfd) else {
            let e = errno
            if dfd >= 0 { Glibc.close(dfd) }
            if parentWatch >= 0 {
                folderState = .missing
                return "preferences watcher: cannot watch \(folder): \(String(cString: strerror(e))); watching \(parent ?? "?") for it to appear"
            }
            Glibc.close(fd)
            fd = -1
            return "preferences watcher: cannot watch \(folder): \(String(cString: strerror(e))); changes from other programs are not followed"
        }
        lastSeen = snapshot()
        return nil
    }

    /// Watches the open folder `dfd` (through /proc/self/fd, so exactly that directory).
    private func watch(_ dfd: Int32) -> Bool {
        // IN_ATTRIB (the folder's mode), IN_DELETE and IN_MOVED_FROM (space freed, an entry
        // in the way gone) only wake a save waiting for its retry; the file is followed on
        // IN_MOVED_TO and IN_CLOSE_WRITE.
        let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB | IN_DELETE
                          | IN_MOVED_FROM | IN_CREATE | IN_ONLYDIR)
        let wd = inotify_add_watch(fd, "/proc/self/fd/\(dfd)", mask)
        guard wd >= 0 else { return false }
        folderFD = dfd
        folderWatch = wd
        return true
    }

    /// Drains inotify: which of the file and the folder events arrived.
    func drain() -> Drained {
        var found = Drained()
        let size = 4096
        let buf = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buf.deallocate() }
        while true {
            let n = read(fd, buf, size)
            if n <= 0 { break }
            var off = 0
            while off + MemoryLayout<inotify_event>.size <= n {
                let ev = buf.load(fromByteOffset: off, as: inotify_event.self)
                let nameStart = off + MemoryLayout<inotify_event>.size
                let name = ev.len > 0 ? String(cString: (buf + nameStart).assumingMemoryBound(to: CChar.self)) : ""
                if ev.wd == folderWatch && folderWatch >= 0 {
                    if ev.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { found.folder = true }
                    if name == fileName && ev.mask & UInt32(IN_MOVED_TO | IN_CLOSE_WRITE) != 0 { found.file = true }
                    if !name.hasPrefix(ownTemporaryPrefix) { found.activity = true }
                } else if ev.wd == parentWatch && parentWatch >= 0 {
                    if name == folderName {
                        if ev.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { found.folder = true }
                        found.activity = true
                    } else if name.isEmpty && ev.mask & UInt32(IN_ATTRIB) != 0 {
                        // The parent's own mode: a folder that could not be made may be now.
                        found.activity = true
                    }
                    if ev.mask & UInt32(IN_IGNORED) != 0 { parentWatch = -1 }
                }
                off = nameStart + Int(ev.len)
            }
        }
        return found
    }

    /// After a folder event: holds and watches whatever real folder is at the path now, or
    /// notes that there is none. Returns the log line for a new state (each said once).
    func rewatch() -> String? {
        var st = stat()
        if folderFD >= 0 {
            // The path still leads to the held folder (renamed and back, or a link to where it
            // went, as the store also accepts): keep it.
            var held = stat()
            if fstat(folderFD, &held) == 0, held.st_nlink > 0, stat(folder, &st) == 0,
               st.st_dev == held.st_dev, st.st_ino == held.st_ino {
                return nil
            }
            inotify_rm_watch(fd, folderWatch)
            Glibc.close(folderFD)
            folderFD = -1
            folderWatch = -1
        }
        let state: FolderState
        var line: String
        if lstat(folder, &st) != 0 {
            state = .missing
            line = "preferences watcher: the folder \(folder) was removed; "
                + (parentWatch >= 0 ? "watching for it to come back" : "changes from other programs are no longer followed")
        } else if (st.st_mode & S_IFMT) == S_IFLNK {
            state = .link
            line = "preferences watcher: the folder \(folder) was replaced by a symbolic link; links are not followed, so the file there is not watched (put a real folder back)"
        } else {
            let dfd = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if dfd >= 0, watch(dfd) {
                state = .watching
                line = folderState == .watching
                    ? "preferences watcher: the folder \(folder) was replaced; watching the new folder"
                    : "preferences watcher: the folder \(folder) is there again; watching it"
            } else {
                let e = errno
                if dfd >= 0 { Glibc.close(dfd) }
                state = e == ELOOP ? .link : .other
                line = "preferences watcher: cannot watch the new \(folder): \(String(cString: strerror(e))); changes from other programs are not followed"
            }
        }
        defer { folderState = state }
        return state == folderState && state != .watching ? nil : line
    }

    /// True while a folder is held and watched.
    var watching: Bool { folderFD >= 0 }

    /// What is at the file's name now (never following a link, never blocking, never reading
    /// more than `sizeLimit` + 1 bytes).
    func snapshot() -> Snapshot {
        guard folderFD >= 0 else { return Snapshot(content: .missing, device: 0, inode: 0) }
        var st = stat()
        guard fstatat(folderFD, fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            let e = errno
            return Snapshot(content: e == ENOENT ? .missing : .unreadable(e), device: 0, inode: 0)
        }
        func made(_ c: Snapshot.Content, _ s: stat) -> Snapshot {
            Snapshot(content: c, device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return made(.notRegular(Self.kind(st.st_mode)), st) }
        let f = openat(folderFD, fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard f >= 0 else {
            let e = errno
            if e == ENOENT { return Snapshot(content: .missing, device: 0, inode: 0) }
            return made(e == ELOOP ? .notRegular("symbolic link") : .unreadable(e), st)
        }
        defer { Glibc.close(f) }
        guard fstat(f, &st) == 0 else { return made(.unreadable(errno), st) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return made(.notRegular(Self.kind(st.st_mode)), st) }
        if Int(st.st_size) > Self.sizeLimit { return made(.tooLarge, st) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while out.count <= Self.sizeLimit {
            let want = min(chunk.count, Self.sizeLimit + 1 - out.count)
            let n = chunk.withUnsafeMutableBytes { read(f, $0.baseAddress, want) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return made(.unreadable(errno), st) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return made(out.count > Self.sizeLimit ? .tooLarge : .bytes(out), st)
    }

    /// Decides whether `now` is another program's change; remembers it as last seen. `own`:
    /// the kiosk's own most recent save (its file's identity and bytes), which is not reported.
    func decide(_ now: Snapshot, own: OwnWrite?) -> Decision {
        defer { lastSeen = now }
        if let own, case .bytes(let b) = now.content, own.device == now.device, own.inode == now.inode, own.bytes == b {
            return .own
        }
        // A removed file is not followed (the page keeps its mode; the next save writes one).
        if case .missing = now.content { return .same }
        return now.differs(from: lastSeen) ? .changed : .same
    }

    enum Decision: Equatable { case own, changed, same }

    func close() {
        if folderFD >= 0 { Glibc.close(folderFD) }
        folderFD = -1
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "directory"
        case S_IFLNK: return "symbolic link"
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        default: return "special file"
        }
    }
}

/// The kiosk's own save of the preferences file: the bytes and the identity of the file it
/// renamed into place. Each atomic save makes a new file, so a later file with the same bytes
/// (a fleet tool restoring an earlier version) has another identity and is followed.
public struct OwnWrite: Equatable, Sendable {
    public var bytes: [UInt8]
    public var device: UInt64
    public var inode: UInt64

    public init(bytes: [UInt8], device: UInt64, inode: UInt64) {
        self.bytes = bytes
        self.device = device
        self.inode = inode
    }
}
