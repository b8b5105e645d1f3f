#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's contents atomically: after a crash or power loss the file holds either
/// the old or the new bytes, never a mix or a truncated file.
///
/// Protocol (every step's failure aborts the write, removes the temporary file and leaves the
/// target untouched):
/// 1. create `.<name>.tmp-<16 random hex>` in the target's own folder with
///    `O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC`, mode 0600 — `O_EXCL` refuses any existing
///    name, including a symlink planted there, so nothing is ever written through a link; on
///    `EEXIST` a new random name is tried (up to 8 times);
/// 2. give it the mode of the file it replaces (when that is a regular file);
/// 3. write all bytes (short writes and `EINTR` retried);
/// 4. `fsync` the temporary file, then `close` it (a close error counts as a failure);
/// 5. `rename` it over the target (atomic within one file system; replaces a symlink at the
///    target name itself, never its destination);
/// 6. open the folder `O_RDONLY|O_DIRECTORY` and `fsync` it so the rename itself is durable.
///
/// What power loss can cost: before step 6 completes, the last write may be lost (the old
/// contents come back), and a stray temporary file may remain (`PreferencesStore` removes
/// stale ones). It cannot leave a partially written target on file systems with atomic
/// rename (ext4, xfs, btrfs, f2fs). On file systems without it (vfat/exFAT SD cards) no
/// user-space protocol can promise that.
public struct AtomicFileWriter {
    /// Which step failed, for messages.
    public enum Step: String, Sendable, Equatable {
        case createFolder = "create the folder"
        case createTemporary = "create a temporary file"
        case write = "write"
        case sync = "sync"
        case close = "close"
        case rename = "rename into place"
        case syncFolder = "sync the folder"
        case open = "open"
        case refuse = "write to"
    }

    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var step: Step
        public var path: String
        public var reason: String
        public var description: String { "could not \(step.rawValue) \(path): \(reason)" }

        public init(step: Step, path: String, reason: String) {
            self.step = step; self.path = path; self.reason = reason
        }
    }

    /// A failure to simulate (tests only): the step fails with `errno` as if the kernel had
    /// said so. For `.write`, `afterBytes` bytes reach the file first (a disk filling up).
    struct InjectedFault {
        var step: Step
        var errno: Int32
        var afterBytes: Int = 0
    }

    /// Produces temporary-name suffixes; replaceable so tests can predict names.
    var makeSuffix: () -> String = AtomicFileWriter.randomSuffix
    var fault: InjectedFault?
    /// The mode a new file is created with (before the umask); a replaced file's mode is kept.
    public var newFileMode: mode_t = 0o600
    /// False: steps 4 and 6 (the syncs) are left out — the replacement stays atomic for
    /// readers but may be lost on power loss (for files that describe a run, not keep data).
    public var durable = true
    /// Told the device and inode of the synced temporary file right before it is renamed over
    /// the target, e.g. so a file watcher can tell this very file from a later one with the
    /// same bytes.
    public var beforeRename: ((_ device: UInt64, _ inode: UInt64) -> Void)?

    public init() {}

    public static func randomSuffix() -> String {
        var g = SystemRandomNumberGenerator()
        let v = g.next() as UInt64
        let hex = String(v, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The temporary name used for `target` with `suffix`.
    public static func temporaryPath(for target: String, suffix: String) -> String {
        FileIO.join(FileIO.directoryName(target), ".\(FileIO.baseName(target)).tmp-\(suffix)")
    }

    /// Atomically replaces (or creates) `target` with `bytes`. The folder must exist. A
    /// symlink at `target` is replaced by the new file (the rename acts on the name, never on
    /// the link's destination). Output files named by the user go through `OutputFile.write`,
    /// which refuses to rename over anything but a regular file.
    public func write(_ bytes: [UInt8], to target: String) throws(Failure) {
        let folder = FileIO.directoryName(target)
        let dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else {
            throw Failure(step: .createTemporary, path: Self.temporaryPath(for: target, suffix: makeSuffix()), reason: FileIO.errorText(errno))
        }
        defer { close(dfd) }
        try write(bytes, name: FileIO.baseName(target), folder: dfd, folderPath: folder)
    }

    /// The same protocol relative to an open folder: the temporary file is created with
    /// `openat(folder, …, O_EXCL|O_NOFOLLOW)`, renamed with `renameat` and the folder synced
    /// with `fsync(folder)`. Nothing outside `folder` is touched whatever links appear in it.
    /// `name` must be a single path component; `folderPath` is only for messages.
    public func write(_ bytes: [UInt8], name: String, folder dfd: Int32, folderPath: String) throws(Failure) {
        let target = FileIO.join(folderPath, name)
        var (fd, tmpName) = (Int32(-1), "")
        for attempt in 0..<8 {
            tmpName = ".\(name).tmp-\(makeSuffix())"
            if let f = fault, f.step == .createTemporary { throw Failure(step: .createTemporary, path: FileIO.join(folderPath, tmpName), reason: FileIO.errorText(f.errno)) }
            fd = openat(dfd, tmpName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, newFileMode)
            if fd >= 0 { break }
            let e = errno
            if e != EEXIST || attempt == 7 { throw Failure(step: .createTemporary, path: FileIO.join(folderPath, tmpName), reason: FileIO.errorText(e)) }
        }
        let tmp = FileIO.join(folderPath, tmpName)
        var closed = false
        func abandon(_ step: Step, _ code: Int32) -> Failure {
            if !closed { close(fd) }
            unlinkat(dfd, tmpName, 0)
            return Failure(step: step, path: step == .rename ? target : tmp, reason: FileIO.errorText(code))
        }

        var old = stat()
        if fstatat(dfd, name, &old, AT_SYMLINK_NOFOLLOW) == 0, (old.st_mode & S_IFMT) == S_IFREG {
            _ = fchmod(fd, old.st_mode & 0o7777)
        }

        var written = 0
        while written < bytes.count {
            var count = bytes.count - written
            if let f = fault, f.step == .write {
                if written >= f.afterBytes { throw abandon(.write, f.errno) }
                count = min(count, f.afterBytes - written)
            }
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw abandon(.write, errno)
            }
            written += n
        }
        if bytes.isEmpty, let f = fault, f.step == .write { throw abandon(.write, f.errno) }

        if let f = fault, f.step == .sync { throw abandon(.sync, f.errno) }
        if durable, fsync(fd) != 0 { throw abandon(.sync, errno) }
        var made = stat()
        let identified = beforeRename != nil && fstat(fd, &made) == 0
        closed = true
        if let f = fault, f.step == .close { close(fd); throw abandon(.close, f.errno) }
        if close(fd) != 0 { throw abandon(.close, errno) }

        if let f = fault, f.step == .rename { throw abandon(.rename, f.errno) }
        if identified { beforeRename?(UInt64(made.st_dev), UInt64(made.st_ino)) }
        if renameat(dfd, tmpName, dfd, name) != 0 { throw abandon(.rename, errno) }

        if let f = fault, f.step == .syncFolder { throw Failure(step: .syncFolder, path: folderPath, reason: FileIO.errorText(f.errno)) }
        // Some file systems cannot sync a folder (EINVAL): the rename is done, nothing to add.
        if durable, fsync(dfd) != 0, errno != EINVAL {
            throw Failure(step: .syncFolder, path: folderPath, reason: FileIO.errorText(errno))
        }
    }
}
