#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

@Suite struct PreferencesStoreTests {
    /// A fixed clock for `.bad-` names: 2023-11-14T22:13:20Z.
    static let fixedNow = 1_700_000_000
    static let stamp = "20231114T221320Z"

    func makeStore(_ path: String) -> PreferencesStore {
        let s = PreferencesStore(path: path)
        s.now = { Self.fixedNow }
        return s
    }

    @Test func missingFileFollowsTheSystemWithoutDiagnostic() {
        let dir = TempFolder()
        let result = makeStore(dir.file("preferences.json")).load()
        #expect(result == PreferencesLoadResult(appearance: .system, source: .defaultNothingSaved, diagnostic: nil))
    }

    @Test func saveThenLoadRoundTripsBothModes() throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        for mode in [true, false, true] {
            let writer = makeStore(path)
            _ = writer.load()
            #expect(writer.save(isDarkMode: mode) == nil)
            let reader = makeStore(path).load()
            #expect(reader.isDarkMode == mode)
            #expect(reader.source == .saved)
            #expect(reader.diagnostic == nil)
        }
        let doc = try PreferencesDocument.decode(readBytes(path)!).get()
        #expect(doc.fixedDarkMode == true)
        #expect(folderEntries(dir.path) == ["preferences.json"])  // no temporary files left
    }

    @Test func otherKeysArePreservedOnRewrite() throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeText(#"{"future": {"list": [1, 2.50, "x\u00e9"], "flag": null}, "isDarkMode": false, "z": 1E3}"#, to: path)
        let store = makeStore(path)
        #expect(store.load().isDarkMode == false)
        #expect(store.save(isDarkMode: true) == nil)
        let value = try StrictJSONParser.parse(readBytes(path)!)
        let object = try #require(value.objectValue)
        // The legacy key was migrated in its place.
        #expect(object.keys == ["future", "appearance", "z"])
        #expect(object["appearance"] == .string("dark"))
        #expect(JSONWriter.compact(object["future"]!) == #"{"list":[1,2.50,"xé"],"flag":null}"#)
        #expect(JSONWriter.compact(object["z"]!) == "1E3")
    }

    @Test func validObjectWithoutTheKeyIsNotAProblem() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeText("{\"other\": 3}\n", to: path)
        let result = makeStore(path).load()
        #expect(result.source == .defaultNothingSaved)
        #expect(result.diagnostic == nil)
        #expect(readText(path) == "{\"other\": 3}\n")  // untouched
    }

    @Test func missingFoldersAreCreatedPrivate() throws {
        let dir = TempFolder()
        let path = dir.file("a/b/darkmode-kiosk/preferences.json")
        let store = makeStore(path)
        _ = store.load()
        #expect(store.save(isDarkMode: true) == nil)
        #expect(makeStore(path).load().isDarkMode == true)
        let st = try #require(FileIO.statInfo(dir.file("a/b/darkmode-kiosk")))
        #expect(st.st_mode & 0o777 == 0o700)
    }

    struct BadCase: Sendable, CustomStringConvertible {
        var name: String
        var bytes: [UInt8]
        var phrase: String
        var description: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(name: "empty", bytes: [], phrase: "is empty"),
        BadCase(name: "whitespace", bytes: Array(" \n".utf8), phrase: "is empty"),
        BadCase(name: "truncated", bytes: Array(#"{"isDarkMode": tr"#.utf8), phrase: "is not valid JSON"),
        BadCase(name: "truncated object", bytes: Array(#"{"isDarkMode": true"#.utf8), phrase: "is not valid JSON"),
        BadCase(name: "garbage", bytes: [0xFF, 0xFE, 0x00, 0x13, 0x80, 0x7B], phrase: "is not valid JSON"),
        BadCase(name: "bad UTF-8 in a string", bytes: [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], phrase: "not valid UTF-8"),
        BadCase(name: "array", bytes: Array("[]".utf8), phrase: "holds an array, expected a JSON object"),
        BadCase(name: "string type", bytes: Array(#"{"isDarkMode": "yes"}"#.utf8), phrase: #"has "isDarkMode" set to a string, expected true or false"#),
        BadCase(name: "number type", bytes: Array(#"{"isDarkMode": 1}"#.utf8), phrase: "set to a number"),
        BadCase(name: "NaN", bytes: Array(#"{"isDarkMode": NaN}"#.utf8), phrase: "NaN and Infinity"),
        BadCase(name: "duplicate key", bytes: Array(#"{"isDarkMode": true, "isDarkMode": false}"#.utf8), phrase: "duplicate key"),
    ]

    @Test(arguments: badCases)
    func badContentStartsLightAndIsKeptAside(_ c: BadCase) throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeBytes(c.bytes, to: path)
        let store = makeStore(path)
        let result = store.load()
        #expect(result.isDarkMode == false)
        #expect(result.source == .defaultAfterProblem)
        let diagnostic = try #require(result.diagnostic)
        let kept = path + ".bad-" + Self.stamp
        #expect(diagnostic.contains(path))
        #expect(diagnostic.contains(c.phrase), "\(diagnostic)")
        #expect(diagnostic.contains(kept))
        #expect(readBytes(kept) == c.bytes)  // the bad file survives byte for byte
        #expect(FileIO.lstatInfo(path) == nil)
        // The store keeps working and never touches the kept file.
        #expect(store.save(isDarkMode: true) == nil)
        #expect(makeStore(path).load().isDarkMode == true)
        #expect(readBytes(kept) == c.bytes)
    }

    @Test func secondBadFileInTheSameSecondGetsANewName() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeText("first", to: path)
        _ = makeStore(path).load()
        writeText("second", to: path)
        let d = makeStore(path).load().diagnostic ?? ""
        #expect(d.contains(".bad-\(Self.stamp)-2"))
        #expect(readText(path + ".bad-" + Self.stamp) == "first")
        #expect(readText(path + ".bad-\(Self.stamp)-2") == "second")
    }

    @Test func oversizedFileIsRefusedUnread() throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        // Valid JSON saying dark, but over the limit: must not be trusted.
        let head = #"{"isDarkMode": true, "pad": ""#
        let pad = String(repeating: "x", count: PreferencesStore.sizeLimit + 1 - head.count - 2)
        writeText(head + pad + "\"}", to: path)
        #expect(readBytes(path)!.count == PreferencesStore.sizeLimit + 1)
        let result = makeStore(path).load()
        #expect(result.isDarkMode == false)
        #expect(result.diagnostic?.contains("too large") == true)
        #expect(isRegularFile(path + ".bad-" + Self.stamp))
    }

    @Test func fileExactlyAtTheLimitIsAccepted() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        let head = #"{"isDarkMode": true, "pad": ""#
        let pad = String(repeating: "x", count: PreferencesStore.sizeLimit - head.count - 2)
        writeText(head + pad + "\"}", to: path)
        let result = makeStore(path).load()
        #expect(result.isDarkMode == true)
        #expect(result.diagnostic == nil)
    }

    @Test func directoryAtThePathIsMovedAside() throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        #expect(mkdir(path, 0o755) == 0)
        writeText("keep", to: path + "/inside")
        let store = makeStore(path)
        let result = store.load()
        #expect(result.diagnostic?.contains("is a directory, expected a regular file") == true)
        #expect(readText(path + ".bad-\(Self.stamp)/inside") == "keep")
        #expect(store.save(isDarkMode: true) == nil)
        #expect(isRegularFile(path))
    }

    @Test func fifoAtThePathDoesNotHang() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        #expect(mkfifo(path, 0o644) == 0)
        let result = makeStore(path).load()
        #expect(result.isDarkMode == false)
        #expect(result.diagnostic?.contains("is a FIFO") == true)
    }

    @Test func danglingSymlinkIsMovedAsideNotWrittenThrough() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        let destination = dir.file("elsewhere/never.json")
        #expect(symlink(destination, path) == 0)
        let store = makeStore(path)
        let result = store.load()
        #expect(result.isDarkMode == false)
        #expect(result.diagnostic?.contains("symbolic link to \(destination), which does not exist") == true)
        #expect(isSymlink(path + ".bad-" + Self.stamp))
        #expect(store.save(isDarkMode: true) == nil)
        #expect(isRegularFile(path))
        #expect(FileIO.lstatInfo(destination) == nil)
    }

    /// Links are never followed (issue: a link let saves reach outside the folder): a link to
    /// a regular file is a bad file like any other link; its target is neither read nor touched.
    /// Saves merge the kiosk's keys over the file as it is now; `willWrite` sees the exact bytes.
    @Test func saveMergesOverTheFileFoundNowAndReportsTheBytes() throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeText(#"{"isDarkMode": false, "a": 1}"#, to: path)
        let store = makeStore(path)
        _ = store.load()
        var seen: [UInt8] = []
        var identity: (UInt64, UInt64) = (0, 0)
        store.willWrite = { seen = $0.bytes; identity = ($0.device, $0.inode) }
        writeText(#"{"b": [true], "isDarkMode": false}"#, to: path)
        #expect(store.save(values: JSONObject([JSONMember(key: "theme", value: .string("x"))])) == nil)
        #expect(store.save(isDarkMode: true) == nil)
        let object = try PreferencesDocument.decode(readBytes(path)!).get().object
        // The legacy key found now is migrated in place; the kiosk's keys are merged over it.
        #expect(object.keys == ["b", "appearance", "theme"])
        #expect(object["appearance"] == .string("dark") && object["theme"] == .string("x") && object["a"] == nil)
        #expect(seen == readBytes(path))
        // The identity announced is the file now in place (a watcher tells it from a later copy).
        var st = stat()
        #expect(stat(path, &st) == 0 && identity == (UInt64(st.st_dev), UInt64(st.st_ino)))
    }

    @Test func symlinkToARegularFileIsBadAndItsTargetUntouched() throws {
        let dir = TempFolder()
        #expect(mkdir(dir.file("real"), 0o755) == 0)
        let real = dir.file("real/prefs.json")
        writeText(#"{"isDarkMode": true, "keep": 1}"#, to: real)
        let path = dir.file("preferences.json")
        #expect(symlink("real/prefs.json", path) == 0)
        let store = makeStore(path)
        let result = store.load()
        #expect(result.isDarkMode == false)
        #expect(result.diagnostic?.contains("is a symbolic link to") == true)
        #expect(result.diagnostic?.contains("which is a regular file (links are not followed") == true)
        #expect(isSymlink(path + ".bad-" + Self.stamp))
        #expect(store.save(isDarkMode: true) == nil)
        #expect(isRegularFile(path))
        #expect(readText(real) == #"{"isDarkMode": true, "keep": 1}"#)
        #expect(folderEntries(dir.file("real")) == ["prefs.json"])
    }

    @Test func symlinkToADirectoryIsBadAndItsTargetUntouched() {
        let dir = TempFolder()
        #expect(mkdir(dir.file("target"), 0o755) == 0)
        let path = dir.file("preferences.json")
        #expect(symlink(dir.file("target"), path) == 0)
        let result = makeStore(path).load()
        #expect(result.diagnostic?.contains("which is a directory") == true)
        #expect(isSymlink(path + ".bad-" + Self.stamp))
        #expect(FileIO.statInfo(dir.file("target")) != nil)
    }

    @Test(.enabled(if: !runningAsRoot, "root ignores permission bits"))
    func unreadableFileIsKeptAside() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeText(#"{"isDarkMode": true}"#, to: path)
        chmod(path, 0)
        let result = makeStore(path).load()
        #expect(result.isDarkMode == false)
        #expect(result.diagnostic?.contains("cannot be read (Permission denied)") == true)
        #expect(isRegularFile(path + ".bad-" + Self.stamp))
    }

    @Test func badFileThatCannotBeMovedAsideIsNeverOverwritten() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeText("garbage", to: path)
        let store = makeStore(path)
        store.renameFile = { _, _, _ in errno = EROFS; return -1 }
        let result = store.load()
        #expect(result.diagnostic?.contains("could not be moved aside (Read-only file system)") == true)
        let first = store.save(isDarkMode: true)
        #expect(first?.contains("not saving preferences") == true)
        #expect(store.save(isDarkMode: false) == nil)  // said once
        #expect(readText(path) == "garbage")
    }

    // MARK: - Write failures

    /// A store whose file holds light mode, loaded.
    func storeWithValidFile(_ dir: TempFolder) -> (PreferencesStore, String, [UInt8]) {
        let path = dir.file("preferences.json")
        writeText("{\n  \"isDarkMode\": false,\n  \"other\": \"x\"\n}\n", to: path)
        let store = makeStore(path)
        _ = store.load()
        return (store, path, readBytes(path)!)
    }

    @Test(arguments: [
        (AtomicFileWriter.Step.write, 5, ENOSPC, "No space left on device"),
        (AtomicFileWriter.Step.write, 0, EIO, "Input/output error"),
        (AtomicFileWriter.Step.sync, 0, EIO, "Input/output error"),
        (AtomicFileWriter.Step.close, 0, EDQUOT, "quota"),
        (AtomicFileWriter.Step.rename, 0, EXDEV, "cross-device"),
        (AtomicFileWriter.Step.createTemporary, 0, EACCES, "Permission denied"),
    ])
    func failedWriteLeavesThePreviousFileIntact(_ step: AtomicFileWriter.Step, _ afterBytes: Int, _ code: Int32, _ phrase: String) {
        let dir = TempFolder()
        let (store, path, before) = storeWithValidFile(dir)
        store.writer.fault = .init(step: step, errno: code, afterBytes: afterBytes)
        let diagnostic = store.save(isDarkMode: true)
        #expect(diagnostic?.contains(path) == true)
        #expect(diagnostic?.contains(step.rawValue) == true)
        #expect(diagnostic?.lowercased().contains(phrase.lowercased()) == true, "\(diagnostic ?? "nil")")
        #expect(readBytes(path) == before)
        #expect(folderEntries(dir.path) == ["preferences.json"])  // the temporary file is gone
    }

    @Test func writeFailuresAreReportedOncePerRun() {
        let dir = TempFolder()
        let (store, path, _) = storeWithValidFile(dir)
        store.writer.fault = .init(step: .write, errno: ENOSPC, afterBytes: 3)
        #expect(store.save(isDarkMode: true) != nil)
        #expect(store.save(isDarkMode: false) == nil)
        #expect(store.save(isDarkMode: true) == nil)
        store.writer.fault = nil
        #expect(store.save(isDarkMode: true) == nil)
        #expect(makeStore(path).load().isDarkMode == true)
        store.writer.fault = .init(step: .rename, errno: EIO)
        #expect(store.save(isDarkMode: false) != nil)  // a new run of failures is reported again
        #expect(makeStore(path).load().isDarkMode == true)
    }

    @Test func folderSyncFailureStillSaves() {
        let dir = TempFolder()
        let (store, path, _) = storeWithValidFile(dir)
        store.writer.fault = .init(step: .syncFolder, errno: EIO)
        let d = store.save(isDarkMode: true)
        #expect(d?.contains("saved to \(path), but could not sync the folder") == true)
        #expect(makeStore(path).load().isDarkMode == true)
    }

    @Test func folderPathThatIsAFileFailsToWriteButKeepsRunning() {
        // A real failure that root cannot bypass: the folder is a regular file.
        let dir = TempFolder()
        writeText("not a folder", to: dir.file("blocker"))
        let path = dir.file("blocker/preferences.json")
        let store = makeStore(path)
        let result = store.load()
        #expect(result.isDarkMode == false)
        #expect(result.diagnostic?.contains("cannot be examined (Not a directory)") == true)
        let d = store.save(isDarkMode: true)
        #expect(d?.contains("could not save preferences to \(path)") == true)
        #expect(store.save(isDarkMode: false) == nil)
        #expect(readText(dir.file("blocker")) == "not a folder")
    }

    @Test(.enabled(if: !runningAsRoot, "root ignores permission bits"))
    func readOnlyFolderKeepsThePreviousFile() {
        let dir = TempFolder()
        let (store, path, before) = storeWithValidFile(dir)
        chmod(dir.path, 0o500)
        defer { chmod(dir.path, 0o700) }
        let d = store.save(isDarkMode: true)
        #expect(d?.contains("Permission denied") == true)
        #expect(readBytes(path) == before)
    }

    @Test func plantedSymlinkAtATemporaryNameIsNeverWrittenThrough() throws {
        let dir = TempFolder()
        let (store, path, _) = storeWithValidFile(dir)
        let victim = dir.file("victim.txt")
        writeText("victim", to: victim)
        var names = ["aaaa", "bbbb"]
        store.writer.makeSuffix = { names.isEmpty ? "cccc" : names.removeFirst() }
        let planted = AtomicFileWriter.temporaryPath(for: path, suffix: "aaaa")
        #expect(symlink(victim, planted) == 0)
        #expect(store.save(isDarkMode: true) == nil)  // retried with another name
        #expect(readText(victim) == "victim")
        #expect(isSymlink(planted))
        #expect(makeStore(path).load().isDarkMode == true)

        // Every name taken: the write fails, still without touching the victim.
        store.writer.makeSuffix = { "aaaa" }
        let d = store.save(isDarkMode: false)
        #expect(d?.contains("could not create a temporary file") == true)
        #expect(readText(victim) == "victim")
        #expect(makeStore(path).load().isDarkMode == true)
    }

    @Test func staleTemporaryFilesAreRemovedAtLoad() {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        let stale = AtomicFileWriter.temporaryPath(for: path, suffix: "0000000000000001")
        let fresh = AtomicFileWriter.temporaryPath(for: path, suffix: "0000000000000002")
        let linkName = AtomicFileWriter.temporaryPath(for: path, suffix: "0000000000000003")
        writeText("half", to: stale)
        writeText("busy", to: fresh)
        #expect(symlink(dir.file("x"), linkName) == 0)
        var old = [timeval(tv_sec: 1_000, tv_usec: 0), timeval(tv_sec: 1_000, tv_usec: 0)]
        #expect(utimes(stale, &old) == 0)
        let store = PreferencesStore(path: path)  // the real clock
        _ = store.load()
        #expect(FileIO.lstatInfo(stale) == nil)
        #expect(isRegularFile(fresh))  // a concurrent writer's file is left alone
        #expect(isSymlink(linkName))  // only regular files are removed
    }

    @Test func temporaryNamesAreRandomAndInTheSameFolder() {
        let a = AtomicFileWriter.randomSuffix(), b = AtomicFileWriter.randomSuffix()
        #expect(a != b)
        #expect(a.count == 16)
        #expect(AtomicFileWriter.temporaryPath(for: "/x/y/preferences.json", suffix: a) == "/x/y/.preferences.json.tmp-\(a)")
    }

    @Test func writtenFileKeepsTheModeOfTheFileItReplaces() throws {
        let dir = TempFolder()
        let (store, path, _) = storeWithValidFile(dir)
        chmod(path, 0o640)
        #expect(store.save(isDarkMode: true) == nil)
        #expect(try #require(FileIO.statInfo(path)).st_mode & 0o777 == 0o640)
    }
}

@Suite struct PreferencesLocationTests {
    @Test func xdgConfigHomeWins() {
        let p = PreferencesLocation.defaultPath(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/k"], passwdHome: { nil })
        #expect(p == "/cfg/darkmode-kiosk/preferences.json")
    }

    @Test func relativeOrEmptyXdgIsIgnored() {
        for xdg in ["", "rel/dir"] {
            let p = PreferencesLocation.defaultPath(environment: ["XDG_CONFIG_HOME": xdg, "HOME": "/home/k"], passwdHome: { nil })
            #expect(p == "/home/k/.config/darkmode-kiosk/preferences.json")
        }
    }

    @Test func passwdHomeWhenHomeIsUnset() {
        #expect(PreferencesLocation.defaultPath(environment: [:], passwdHome: { "/var/kiosk" })
            == "/var/kiosk/.config/darkmode-kiosk/preferences.json")
        #expect(PreferencesLocation.defaultPath(environment: [:], passwdHome: { nil }) == nil)
    }

    @Test func utcTimestamps() {
        #expect(FileIO.utcTimestamp(0) == "19700101T000000Z")
        #expect(FileIO.utcTimestamp(1_700_000_000) == "20231114T221320Z")
        #expect(FileIO.utcTimestamp(951_782_400) == "20000229T000000Z")
    }
}
