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
/// - `save(appearance:)` / `save(values:)` on each commit (never per frame): re-reads the file,
///   merges the kiosk's keys over what is there **now** (keys another program added while the
///   kiosk ran are kept), and replaces it atomically (see `AtomicFileWriter`).
///
/// File discipline: the store holds the preferences **folder** by descriptor from start
/// (`PreferencesFolder`: a folder replaced by another real folder is adopted, one swapped for a
/// symbolic link is refused) and does everything relative to that descriptor — `openat(…, O_NOFOLLOW)` to read, `renameat` to move
/// a bad entry aside or to rename the new file into place, `fsync` of the folder. The file name
/// is never resolved through a symlink, so nothing outside the folder is ever read, renamed,
/// replaced or truncated.
///
/// Bad files never stop the kiosk. Empty, truncated, non-UTF-8 or otherwise invalid JSON, JSON
/// of the wrong shape or types, files over `sizeLimit`, a directory/FIFO/other non-regular
/// file, an unreadable file, or **any symlink** (links are not followed: a link is a bad file,
/// whatever it points to): the kiosk starts in the default mode, the load result carries one
/// diagnostic naming the file and the problem, and the bad entry itself — the link, not its
/// destination — is renamed to `preferences.json.bad-<UTC timestamp>` (never overwritten). When
/// it cannot be moved aside, saving is disabled for the session so it is not overwritten either.
/// A bad entry found at save time (written from outside while the kiosk ran) is kept aside the
/// same way before the new file is written.
///
/// Write failures (read-only folder, full disk, missing permission, a path longer than
/// `PATH_MAX` or with a component longer than `NAME_MAX` — checked before any folder is made)
/// are returned from `save` as a diagnostic once per run of failures — repeated failures stay
/// quiet until a save succeeds again — and the kiosk keeps the mode in memory. Folders created
/// by a save that then fails are removed again.
public final class PreferencesStore {
    /// Files larger than this are refused unread (the real file is ~30 bytes).
    public static let sizeLimit = 64 * 1024
    /// The default preference: follow the system (which, with no system input, is light).
    public static let defaultAppearance = AppearancePreference.system
    /// Longest accepted path and path component (Linux `PATH_MAX` minus the terminating NUL,
    /// `NAME_MAX`). The temporary name adds `.` + `.tmp-` + 16 hex digits to the file name.
    public static let pathMax = 4095
    public static let nameMax = 255

    /// The preferences path as given.
    public let path: String
    let folderPath: String
    let fileName: String
    /// What the file held at load (every key), for callers that read more than the mode.
    public private(set) var loadedDocument = PreferencesDocument()
    /// The keys this kiosk has saved during this run; merged over the file at every save.
    private var ownValues = JSONObject()
    private var savingDisabledReason: String?
    private var failureReported = false

    var writer = AtomicFileWriter()
    /// The folder, held by descriptor from start (see `PreferencesFolder`).
    let folder: PreferencesFolder
    /// Called with the exact bytes of each write and the identity of the new file just before
    /// it is renamed into place (after the merge and the file's fsync), e.g. for a file
    /// watcher's `expectOwnWrite`, so the kiosk's own save is not taken for an outside change
    /// while a later file with the same bytes still is.
    public var willWrite: ((WrittenFile) -> Void)?
    /// One save's file: its bytes and the identity of the file renamed into place.
    public struct WrittenFile: Equatable, Sendable {
        public var bytes: [UInt8]
        public var device: UInt64
        public var inode: UInt64
    }
    /// True when the last `save` put a new file in place.
    public private(set) var lastSaveWritten = false
    /// Why the last `save` failed (its diagnostic without "; the mode is kept in memory"),
    /// whether or not it was reported; nil after a save that put the file in place.
    public private(set) var lastFailure: String?
    /// How many `.bad-*` files are kept in the folder: the newest; older ones are removed when
    /// another is kept aside (issue 39, item 6: a tool writing garbage 50 times a second made
    /// 2,922 of them, 12 MB, in a minute).
    public static let keptBadFiles = 3
    /// Older `.bad-*` files this store removed since it was made (said in its log lines).
    public private(set) var removedBadFiles = 0
    /// Seconds since the epoch, for `.bad-<timestamp>` names; replaceable in tests.
    var now: () -> Int = { Int(time(nil)) }
    /// `renameat(2)` within the folder, replaceable in tests to simulate a bad file that cannot
    /// be moved aside (root ignores permission bits, so a read-only folder cannot simulate it there).
    var renameFile: (Int32, String, String) -> Int32 = { renameat($0, $1, $0, $2) }
    /// Decides whether file bytes are a usable document; the schema is `PreferencesDocument`'s.
    var validate: ([UInt8]) -> Result<PreferencesDocument, PreferencesDocument.Problem> = { bytes in
        PreferencesDocument.decode(bytes)
    }

    /// - Parameter path: the file, e.g. `--prefs` or `PreferencesLocation.defaultPath(...)`.
    public init(path: String) {
        self.path = path
        folderPath = FileIO.directoryName(path)
        fileName = FileIO.baseName(path)
        folder = PreferencesFolder(path: folderPath)
    }

    // MARK: - Load

    /// Reads the file once at start. Never throws: every problem becomes the default mode plus
    /// a diagnostic.
    public func load() -> PreferencesLoadResult {
        loadedDocument = PreferencesDocument()
        ownValues = JSONObject()
        savingDisabledReason = nil
        failureReported = false
        if let tooLong = Self.lengthProblem(path) {
            return PreferencesLoadResult(appearance: Self.defaultAppearance, source: .defaultAfterProblem,
                                         diagnostic: "preferences file \(Self.shortened(path)) cannot be used (\(tooLong)); following the system appearance (the default)")
        }
        let dfd: Int32
        switch folder.resolve() {
        case .open(let d): dfd = d
        case .missing: return Self.fresh()
        case .failed(let e): return problemResult("cannot be examined (\(FileIO.errorText(e)))")
        case .refused(let why): return problemResult("cannot be used: \(why)")
        }
        removeStaleTemporaries(dfd)

        switch examine(dfd) {
        case .missing:
            return Self.fresh()
        case .failed(let e):
            return problemResult("cannot be examined (\(FileIO.errorText(e)))")
        case .bad(let what):
            var message = "preferences file \(path) \(what); following the system appearance (the default)"
            switch keepAside(dfd) {
            case .success(let kept):
                message += "; the bad file was kept as \(kept)\(removedNote)"
            case .failure(let reason):
                savingDisabledReason = "the bad preferences file \(path) could not be moved aside"
                message += "; it could not be moved aside (\(reason)), so it will not be overwritten: changes are kept in memory only"
            }
            return PreferencesLoadResult(appearance: Self.defaultAppearance, source: .defaultAfterProblem, diagnostic: message)
        case .object(let doc):
            loadedDocument = doc
            if let saved = doc.storedAppearance {
                return PreferencesLoadResult(appearance: saved, source: .saved, diagnostic: nil,
                                             migratedLegacy: doc.migratedLegacy)
            }
            return Self.fresh()
        }
    }

    private static func fresh() -> PreferencesLoadResult {
        PreferencesLoadResult(appearance: defaultAppearance, source: .defaultNothingSaved, diagnostic: nil)
    }

    private func problemResult(_ what: String) -> PreferencesLoadResult {
        PreferencesLoadResult(appearance: Self.defaultAppearance, source: .defaultAfterProblem,
                              diagnostic: "preferences file \(path) \(what); following the system appearance (the default)")
    }

    /// `path` for messages: paths over 160 bytes show their first 80 and last 60 characters.
    static func shortened(_ path: String) -> String {
        guard path.utf8.count > 160 else { return path }
        return "\(path.prefix(80))…\(path.suffix(60))"
    }

    /// Why `path` is too long for the file system, or nil.
    static func lengthProblem(_ path: String) -> String? {
        let tmpExtra = 1 + 5 + 16  // "." + ".tmp-" + 16 hex digits
        if path.utf8.count + tmpExtra > pathMax {
            return "the path is \(path.utf8.count) bytes long, the limit is \(pathMax - tmpExtra)"
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        for (i, c) in components.enumerated() {
            let limit = i == components.count - 1 ? nameMax - tmpExtra : nameMax
            if c.utf8.count > limit {
                let shown = c.utf8.count > 40 ? "\(c.prefix(20))…" : String(c)
                return "the name '\(shown)' is \(c.utf8.count) bytes long, the limit is \(limit)"
            }
        }
        return nil
    }

    /// What is at the preferences name in the folder, examined without following a link.
    private enum Found {
        case missing
        case object(PreferencesDocument)
        case bad(String)
        case failed(Int32)
    }

    private func examine(_ dfd: Int32) -> Found {
        var st = stat()
        guard fstatat(dfd, fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            let e = errno
            return e == ENOENT ? .missing : .failed(e)
        }
        if (st.st_mode & S_IFMT) == S_IFLNK {
            let destination = readLink(dfd) ?? "?"
            let resolved = FileIO.join(folderPath, destination)
            let what: String
            if let t = FileIO.statInfo(resolved) {
                what = "which is a \(FileIO.fileType(t.st_mode))"
            } else {
                let e = errno
                what = e == ENOENT ? "which does not exist" : "which cannot be reached (\(FileIO.errorText(e)))"
            }
            return .bad("is a symbolic link to \(resolved), \(what) (links are not followed, expected a regular file)")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .bad("is a \(FileIO.fileType(st.st_mode)), expected a regular file") }
        let fd = openat(dfd, fileName, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { return .missing }
            if e == ELOOP { return .bad("is a symbolic link (it appeared while being opened); links are not followed, expected a regular file") }
            return .bad("cannot be read (\(FileIO.errorText(e)))")
        }
        defer { close(fd) }
        switch FileIO.readOpenFile(fd, limit: Self.sizeLimit) {
        case .notFound: return .missing
        case .notRegularFile(let kind): return .bad("is a \(kind), expected a regular file")
        case .tooLarge(let size): return .bad("is too large (\(size) bytes or more, the limit is \(Self.sizeLimit))")
        case .failed(let reason): return .bad("cannot be read (\(reason))")
        case .bytes(let bytes):
            switch validate(bytes) {
            case .failure(let p): return .bad(p.description)
            case .success(let doc): return .object(doc)
            }
        }
    }

    /// Renames the entry (never its link destination) to `<name>.bad-<UTC timestamp>` (plus
    /// `-2`, `-3`, … within the same second: one more than the highest there), within the
    /// folder; then removes all but the newest `keptBadFiles` of them.
    private func keepAside(_ dfd: Int32) -> Result<String, FileAsideError> {
        let stamp = FileIO.utcTimestamp(now())
        let base = "\(fileName).bad-\(stamp)"
        let existing = badFiles(dfd)
        var n = existing.filter { $0.stamp == stamp }.map(\.number).max() ?? 0
        var candidate = n == 0 ? base : "\(base)-\(n + 1)"
        var st = stat()
        while fstatat(dfd, candidate, &st, AT_SYMLINK_NOFOLLOW) == 0 {
            n += 1
            guard n < 100_000 else { return .failure(FileAsideError(reason: "too many kept files")) }
            candidate = "\(base)-\(n + 1)"
        }
        guard renameFile(dfd, fileName, candidate) == 0 else { return .failure(FileAsideError(reason: FileIO.errorText(errno))) }
        pruneBadFiles(dfd)
        return .success(FileIO.join(folderPath, candidate))
    }

    /// One kept-aside file: `<name>.bad-<stamp>` or `<name>.bad-<stamp>-<number>` (number 1 for none).
    struct BadFile: Equatable {
        var name: String
        var stamp: String
        var number: Int
    }

    /// The kept-aside files in the folder (names of that form only; anything else is left alone).
    func badFiles(_ dfd: Int32) -> [BadFile] {
        let prefix = "\(fileName).bad-"
        var found: [BadFile] = []
        forEachEntry(dfd) { name in
            guard name.hasPrefix(prefix) else { return }
            let rest = name.dropFirst(prefix.count)
            let stamp = rest.prefix(16)  // YYYYMMDDTHHMMSSZ
            guard stamp.count == 16, stamp.last == "Z" else { return }
            let tail = rest.dropFirst(16)
            if tail.isEmpty {
                found.append(BadFile(name: name, stamp: String(stamp), number: 1))
            } else if tail.first == "-", let n = Int(tail.dropFirst()), n > 1 {
                found.append(BadFile(name: name, stamp: String(stamp), number: n))
            }
        }
        return found
    }

    /// Removes kept-aside regular files (and links) beyond the newest `keptBadFiles`.
    private func pruneBadFiles(_ dfd: Int32) {
        let all = badFiles(dfd).sorted { ($0.stamp, $0.number) < ($1.stamp, $1.number) }
        guard all.count > Self.keptBadFiles else { return }
        for f in all.dropLast(Self.keptBadFiles) {
            var st = stat()
            guard fstatat(dfd, f.name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let kind = st.st_mode & S_IFMT
            guard kind == S_IFREG || kind == S_IFLNK else { continue }  // a folder or device is left alone
            if unlinkat(dfd, f.name, 0) == 0 { removedBadFiles += 1 }
        }
    }

    /// For a log line: how many older bad files were removed so far.
    private var removedNote: String {
        removedBadFiles == 0 ? "" : " (only the newest \(Self.keptBadFiles) bad files are kept; \(removedBadFiles) older ones removed since the kiosk started)"
    }

    private struct FileAsideError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    // MARK: - Save

    /// Saves the appearance preference (see `save(values:)`); a legacy `isDarkMode` key found in
    /// the file is replaced by it (the migration, see `PreferencesDocument.decode`).
    @discardableResult
    public func save(appearance: AppearancePreference) -> String? {
        save(values: JSONObject([JSONMember(key: PreferencesDocument.appearanceKey, value: .string(appearance.rawValue))]))
    }

    /// Saves the kiosk's `values`: re-reads the file, sets each of the kiosk's keys (every key
    /// saved during this run, the newest value winning) over the object found now, and
    /// replaces the file atomically. A bad entry found now is kept aside first (as at load).
    /// Returns a diagnostic for stderr when something went wrong and this run of failures has
    /// not been reported yet; nil otherwise. The caller keeps running with the mode in memory.
    @discardableResult
    public func save(values: JSONObject) -> String? {
        lastSaveWritten = false
        for m in values.members { ownValues[m.key] = m.value }
        if let reason = savingDisabledReason { return reportOnce("not saving preferences: \(reason)") }
        if let tooLong = Self.lengthProblem(path) {
            return reportOnce("could not save preferences to \(Self.shortened(path)): \(tooLong); the mode is kept in memory")
        }
        let dfd: Int32, created: [String]
        switch openFolder() {
        case .failure(let problem): return reportOnce(problem.text)
        case .success(let opened): (dfd, created) = opened
        }
        var object: JSONObject, note: String?
        switch currentObject(in: dfd) {
        case .failure(let problem): return reportOnce(problem.text)
        case .success(let found): (object, note) = found
        }
        for m in ownValues.members { object[m.key] = m.value }
        let bytes = PreferencesDocument(object: object).encoded
        var writer = self.writer
        if let willWrite {
            writer.beforeRename = { device, inode in willWrite(WrittenFile(bytes: bytes, device: device, inode: inode)) }
        }
        lastSaveWritten = false
        do throws(AtomicFileWriter.Failure) {
            try writer.write(bytes, name: fileName, folder: dfd, folderPath: folderPath)
            failureReported = false
            lastSaveWritten = true
            lastFailure = nil
            return note
        } catch {
            if error.step == .syncFolder {
                // The new file is in place; only its durability across power loss is in doubt.
                lastSaveWritten = true
                let line = note ?? reportOnce("preferences saved to \(path), but \(error)")
                lastFailure = nil
                return line
            }
            removeFolders(created)
            return reportOnce("could not save preferences to \(path): \(error); the mode is kept in memory")
        }
    }

    /// Why a save stopped before writing: the line to report.
    struct SaveProblem: Error { var text: String }

    /// The preferences folder, opened (made first when missing, with the folders made listed so
    /// a failed save removes them again).
    private func openFolder() -> Result<(Int32, [String]), SaveProblem> {
        var created: [String] = []
        var resolved = folder.resolve()
        if resolved == .missing {
            do {
                try makeFolder(folderPath, created: &created)
            } catch {
                removeFolders(created)
                return .failure(SaveProblem(text: "could not save preferences to \(path): \(error); the mode is kept in memory"))
            }
            resolved = folder.resolve()
        }
        switch resolved {
        case .open(let d): return .success((d, created))
        case .refused(let why):
            removeFolders(created)
            return .failure(SaveProblem(text: "not saving preferences to \(path): \(why); the mode is kept in memory"))
        case .missing, .failed:
            let e: Int32
            if case .failed(let code) = resolved { e = code } else { e = ENOENT }
            removeFolders(created)
            return .failure(SaveProblem(text: "could not save preferences to \(path): could not open the folder \(folderPath): "
                                        + "\(FileIO.errorText(e)); the mode is kept in memory"))
        }
    }

    /// The object the file holds now (empty when there is none), a bad file kept aside first
    /// with the line that says so.
    private func currentObject(in dfd: Int32) -> Result<(JSONObject, String?), SaveProblem> {
        switch examine(dfd) {
        case .missing: return .success((JSONObject(), nil))
        case .object(let found): return .success((found.object, nil))
        case .failed(let e):
            return .failure(SaveProblem(text: "could not save preferences to \(path): it cannot be examined "
                                        + "(\(FileIO.errorText(e))); the mode is kept in memory"))
        case .bad(let what):
            switch keepAside(dfd) {
            case .success(let kept):
                return .success((JSONObject(), "preferences file \(path) \(what) (changed while the kiosk ran); the bad file was kept as "
                                 + "\(kept)\(removedNote) and a new file written"))
            case .failure(let reason):
                return .failure(SaveProblem(text: "not saving preferences: the file \(path) \(what) and could not be moved aside "
                                            + "(\(reason)), so it is not overwritten; the mode is kept in memory"))
            }
        }
    }

    private func reportOnce(_ message: String) -> String? {
        let suffix = "; the mode is kept in memory"
        lastFailure = message.hasSuffix(suffix) ? String(message.dropLast(suffix.count)) : message
        guard !failureReported else { return nil }
        failureReported = true
        return message
    }

    /// Creates `folder` and its missing parents (mode 0700), recording what it made.
    private func makeFolder(_ folder: String, created: inout [String]) throws(AtomicFileWriter.Failure) {
        if let st = FileIO.statInfo(folder), (st.st_mode & S_IFMT) == S_IFDIR { return }
        let parent = FileIO.directoryName(folder)
        if parent != folder && parent != "/" && parent != "." { try makeFolder(parent, created: &created) }
        if mkdir(folder, 0o700) == 0 {
            created.append(folder)
        } else if errno != EEXIST {
            throw AtomicFileWriter.Failure(step: .createFolder, path: folder, reason: FileIO.errorText(errno))
        }
    }

    /// Removes folders this save created (deepest first; only if still empty).
    private func removeFolders(_ created: [String]) {
        for f in created.reversed() { rmdir(f) }
    }

    // MARK: - Helpers

    /// Removes `.preferences.json.tmp-*` regular files left by an interrupted write (older than
    /// a minute, so a concurrent writer's file is left alone). Never follows links.
    private func removeStaleTemporaries(_ dfd: Int32) {
        let prefix = ".\(fileName).tmp-"
        let cutoff = now() - 60
        forEachEntry(dfd) { name in
            guard name.hasPrefix(prefix) else { return }
            var st = stat()
            if fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_mtim.tv_sec) < cutoff {
                unlinkat(dfd, name, 0)
            }
        }
    }

    /// Calls `body` with each entry name of the folder `dfd` (read through a duplicate).
    private func forEachEntry(_ dfd: Int32, _ body: (String) -> Void) {
        let dupfd = dup(dfd)
        guard dupfd >= 0, let dir = fdopendir(dupfd) else { if dupfd >= 0 { close(dupfd) }; return }
        defer { closedir(dir) }
        rewinddir(dir)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            body(name)
        }
    }

    private func readLink(_ dfd: Int32) -> String? {
        var buf = [CChar](repeating: 0, count: 4097)
        let n = readlinkat(dfd, fileName, &buf, 4096)
        guard n >= 0 else { return nil }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
