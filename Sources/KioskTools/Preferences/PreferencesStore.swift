#if canImport(Glibc)
import Glibc
#endif
import Appearance
import KioskEngine
import KioskSupport

/// What `PreferencesStore.load()` found.
public struct PreferencesLoadResult: Equatable, Sendable {
    /// Where the starting mode came from.
    public enum Source: Equatable, Sendable {
        /// The file held a preference (`appearance`, or the legacy `isDarkMode`).
        case saved
        /// No file yet (first start), or a valid file without a preference.
        case defaultNothingSaved
        /// The file was bad or unreadable; see `diagnostic`.
        case defaultAfterProblem
    }

    /// The preference to start with.
    public var appearance: AppearancePreference
    public var source: Source
    /// One human sentence for stderr when something was wrong (names the file, the problem,
    /// and where the bad file was kept); nil when all was well.
    public var diagnostic: String?
    /// True when the file held the legacy `isDarkMode` key: save once to migrate it.
    public var migratedLegacy = false
}

/// The kiosk's persistent appearance, the counterpart of `@AppStorage("isDarkMode")`.
///
/// - `load()` once at start: the saved mode, or the default (`false`, light) plus a diagnostic.
/// - `save(appearance:)` on each commit (never per frame): an atomic rewrite (see
///   `AtomicFileWriter` for the protocol and what power loss can cost) that keeps every other
///   key of the file.
///
/// Bad files never stop the kiosk. Empty, truncated, non-UTF-8 or otherwise invalid JSON, JSON
/// of the wrong shape or types, files over `sizeLimit`, a directory/FIFO/other non-regular
/// file, an unreadable file, or a dangling symlink: the kiosk starts in the default mode, the
/// load result carries one diagnostic naming the file and the problem, and the bad entry is
/// renamed to `preferences.json.bad-<UTC timestamp>` (never overwritten). When it cannot be
/// moved aside, saving is disabled for the session so the bad file is not overwritten either.
///
/// Symlinks: a symlink at the preferences path that resolves to a regular file is followed —
/// it is read, and saves replace the resolved file atomically in the resolved file's own
/// folder, so the link stays a link. A symlink that is dangling, looping or points at a
/// non-regular file is bad: the link itself is moved aside (its destination is never touched)
/// and the next save creates a regular file at the path. Temporary files are created with
/// `O_EXCL|O_NOFOLLOW`, so a link planted at a temporary name is never written through.
///
/// Write failures (read-only folder, full disk, missing permission) are returned from `save`
/// as a diagnostic once per run of failures — repeated failures stay quiet until a save
/// succeeds again — and the kiosk keeps the mode in memory.
public final class PreferencesStore {
    /// Files larger than this are refused unread (the real file is ~30 bytes).
    public static let sizeLimit = 64 * 1024
    /// The default preference: follow the system (which, with no system input, is light).
    public static let defaultAppearance = AppearancePreference.system

    /// The preferences path as given (may be a symlink).
    public let path: String
    private var document = PreferencesDocument()
    private var savingDisabledReason: String?
    private var failureReported = false

    var writer = AtomicFileWriter()
    /// Seconds since the epoch, for `.bad-<timestamp>` names; replaceable in tests.
    var now: () -> Int = { Int(time(nil)) }
    /// `rename(2)`, replaceable in tests to simulate a bad file that cannot be moved aside
    /// (root ignores permission bits, so a read-only folder cannot simulate it there).
    var renameFile: (String, String) -> Int32 = { rename($0, $1) }

    /// - Parameter path: the file, e.g. `--prefs` or `PreferencesLocation.defaultPath(...)`.
    public init(path: String) {
        self.path = path
    }

    // MARK: - Load

    /// Reads the file once at start. Never throws: every problem becomes the default mode plus
    /// a diagnostic.
    public func load() -> PreferencesLoadResult {
        document = PreferencesDocument()
        savingDisabledReason = nil
        failureReported = false
        removeStaleTemporaries()

        guard let link = FileIO.lstatInfo(path) else {
            let e = errno
            if e == ENOENT { return Self.fresh() }
            return problem("cannot be examined (\(FileIO.errorText(e)))", file: path, moveAside: false)
        }
        var fileToRead = path
        if (link.st_mode & S_IFMT) == S_IFLNK {
            let destination = readLink(path) ?? "?"
            guard let target = FileIO.statInfo(path) else {
                let e = errno
                let why = e == ENOENT ? "which does not exist" : "which cannot be reached (\(FileIO.errorText(e)))"
                return problem("is a symbolic link to \(destination), \(why)", file: path, moveAside: true)
            }
            guard (target.st_mode & S_IFMT) == S_IFREG else {
                return problem("is a symbolic link to a \(FileIO.fileType(target.st_mode)) (\(destination)), expected a regular file",
                               file: path, moveAside: true)
            }
            fileToRead = resolvedPath(path) ?? path
        }

        switch FileIO.readFile(at: fileToRead, limit: Self.sizeLimit) {
        case .notFound:
            return Self.fresh()
        case .notRegularFile(let kind):
            return problem("is a \(kind), expected a regular file", file: fileToRead, moveAside: true)
        case .tooLarge(let size):
            return problem("is too large (\(size) bytes or more, the limit is \(Self.sizeLimit))", file: fileToRead, moveAside: true)
        case .failed(let reason):
            return problem("cannot be read (\(reason))", file: fileToRead, moveAside: true)
        case .bytes(let bytes):
            switch PreferencesDocument.decode(bytes) {
            case .failure(let p):
                return problem(p.description, file: fileToRead, moveAside: true)
            case .success(let doc):
                document = doc
                if let saved = doc.storedAppearance {
                    return PreferencesLoadResult(appearance: saved, source: .saved, diagnostic: nil,
                                                 migratedLegacy: doc.migratedLegacy)
                }
                return Self.fresh()
            }
        }
    }

    private static func fresh() -> PreferencesLoadResult {
        PreferencesLoadResult(appearance: defaultAppearance, source: .defaultNothingSaved, diagnostic: nil)
    }

    private func problem(_ what: String, file: String, moveAside: Bool) -> PreferencesLoadResult {
        var message = "preferences file \(file) \(what); starting in light mode"
        if moveAside {
            switch keepAside(file) {
            case .success(let kept):
                message += "; the bad file was kept as \(kept)"
            case .failure(let reason):
                savingDisabledReason = "the bad preferences file \(file) could not be moved aside"
                message += "; it could not be moved aside (\(reason)), so it will not be overwritten: changes are kept in memory only"
            }
        }
        return PreferencesLoadResult(appearance: Self.defaultAppearance, source: .defaultAfterProblem, diagnostic: message)
    }

    /// Renames `file` to `file.bad-<UTC timestamp>` (plus `-2`, `-3`, … if taken).
    private func keepAside(_ file: String) -> Result<String, FileAsideError> {
        let base = "\(file).bad-\(FileIO.utcTimestamp(now()))"
        var candidate = base
        var n = 1
        while FileIO.lstatInfo(candidate) != nil {
            n += 1
            guard n < 1000 else { return .failure(FileAsideError(reason: "too many kept files")) }
            candidate = "\(base)-\(n)"
        }
        guard renameFile(file, candidate) == 0 else { return .failure(FileAsideError(reason: FileIO.errorText(errno))) }
        return .success(candidate)
    }

    private struct FileAsideError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    // MARK: - Save

    /// Saves the committed mode, keeping every other key. Returns a diagnostic for stderr when
    /// the write failed and this run of failures has not been reported yet; nil otherwise. The
    /// caller keeps running with the mode in memory either way.
    @discardableResult
    public func save(appearance: AppearancePreference) -> String? {
        if let reason = savingDisabledReason { return reportOnce("not saving preferences: \(reason)") }
        document.appearance = appearance
        let target = writeTarget()
        do {
            try makeFolder(FileIO.directoryName(target))
            try writer.write(document.encoded, to: target)
            failureReported = false
            return nil
        } catch where error.step == .syncFolder {
            // The new file is in place; only its durability across power loss is in doubt.
            return reportOnce("preferences saved to \(target), but \(error)")
        } catch {
            return reportOnce("could not save preferences to \(target): \(error); the mode is kept in memory")
        }
    }

    private func reportOnce(_ message: String) -> String? {
        guard !failureReported else { return nil }
        failureReported = true
        return message
    }

    /// The resolved file for a symlink to a regular file, else the path itself (a rename then
    /// replaces whatever is there, a link included, without following it).
    private func writeTarget() -> String {
        guard let l = FileIO.lstatInfo(path), (l.st_mode & S_IFMT) == S_IFLNK,
              let t = FileIO.statInfo(path), (t.st_mode & S_IFMT) == S_IFREG,
              let resolved = resolvedPath(path) else { return path }
        return resolved
    }

    /// Creates `folder` and its missing parents (mode 0700).
    private func makeFolder(_ folder: String) throws(AtomicFileWriter.Failure) {
        if let st = FileIO.statInfo(folder), (st.st_mode & S_IFMT) == S_IFDIR { return }
        let parent = FileIO.directoryName(folder)
        if parent != folder && parent != "/" && parent != "." { try makeFolder(parent) }
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw AtomicFileWriter.Failure(step: .createFolder, path: folder, reason: FileIO.errorText(errno))
        }
    }

    // MARK: - Helpers

    /// Removes `.preferences.json.tmp-*` regular files left by an interrupted write (older than
    /// a minute, so a concurrent writer's file is left alone). Never follows links.
    private func removeStaleTemporaries() {
        let target = writeTarget()
        let folder = FileIO.directoryName(target)
        let prefix = ".\(FileIO.baseName(target)).tmp-"
        guard let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        let cutoff = now() - 60
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix) else { continue }
            let full = FileIO.join(folder, name)
            if let st = FileIO.lstatInfo(full), (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_mtim.tv_sec) < cutoff {
                unlink(full)
            }
        }
    }

    private func readLink(_ p: String) -> String? {
        var buf = [CChar](repeating: 0, count: 4097)
        let n = readlink(p, &buf, 4096)
        guard n >= 0 else { return nil }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func resolvedPath(_ p: String) -> String? {
        guard let r = realpath(p, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }
}
