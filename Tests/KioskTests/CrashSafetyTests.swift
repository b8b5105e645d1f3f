#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// Crash safety of the preferences file, end to end: the real `darkmode-kiosk replay` runs a
/// long trace of taps (each one a commit, each commit an atomic rewrite of the file) and is
/// killed with SIGKILL at random moments, many times. After every kill the file must be
/// exactly one of the states a finished commit can leave — never missing once a commit was
/// reported, never empty or partial, its other keys intact byte for byte — and only the
/// documented temporary files may be left over, and only until the next start cleans them.
@Suite(.serialized) struct CrashSafetyTests {
    static let taps = 3000
    static let kills = 50
    static let freshKills = 12

    /// `count` taps at the toggle's centre, 0.02 s apart (each one commits; the run spends much of its time saving).
    static func tapTrace(count: Int) -> String {
        var lines: [String] = []
        for i in 0..<count {
            let t = Double(i) / 50
            lines.append(TraceEvent.pointer(id: 0, phase: .down, x: 130, y: 80, device: .touch, space: .toggle, t: t).jsonLine)
            lines.append(TraceEvent.pointer(id: 0, phase: .up, x: 130, y: 80, device: .touch, space: .toggle, t: t + 0.005).jsonLine)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The commit values a killed run printed (each is printed after its save returned).
    static func commitValues(_ stdout: String) -> [Bool] {
        stdout.split(separator: "\n").compactMap { line -> Bool? in
            guard let v = try? StrictJSONParser.parse(Array(line.utf8)), let o = v.objectValue, o["commit"] != nil else { return nil }
            return o["commit"]?.boolValue
        }
    }

    static func isTemporaryName(_ name: String) -> Bool {
        let prefix = ".preferences.json.tmp-"
        guard name.hasPrefix(prefix) else { return false }
        let suffix = name.dropFirst(prefix.count)
        return suffix.count == 16 && suffix.allSatisfy { $0.isHexDigit }
    }

    /// Sets a file's modification time `seconds` into the past.
    static func backdate(_ path: String, seconds: Int) {
        let past = time(nil) - seconds
        var times = [timeval(tv_sec: past, tv_usec: 0), timeval(tv_sec: past, tv_usec: 0)]
        _ = utimes(path, &times)
    }

    func startReplay(_ dir: TempFolder, trace: String, prefs: String, tag: String) throws -> ChildProcess {
        let exe = try #require(KioskExecutable.path, Comment(rawValue: KioskExecutable.missingMessage))
        return try ChildProcess(exe, ["replay", trace, "--size", "400x300", "--prefs", prefs],
                                folder: dir.path, tag: tag, lineBuffered: true)
    }

    /// Before the first commit the file must not exist; after a reported commit it must; and
    /// the first commit from light can only have written `true`.
    @Test func firstCommitCreatesTheFileAtomically() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(Self.tapTrace(count: 200), to: trace)
        var random = SeededRandom(seed: 0xC0FFEE)
        var seenAbsent = 0, seenPresent = 0
        for run in 0..<Self.freshKills {
            let folder = dir.file("fresh\(run)")
            let prefs = folder + "/preferences.json"
            let child = try startReplay(dir, trace: trace, prefs: prefs, tag: "fresh\(run)")
            usleep(UInt32(random.uniform(0.02...0.25) * 1_000_000))
            child.kill(SIGKILL)
            let outcome = child.wait()
            #expect(outcome.signal == SIGKILL || outcome.status == 0)
            let commits = Self.commitValues(outcome.stdout)
            #expect(outcome.stderr.isEmpty, "run \(run): \(outcome.stderr)")
            let entries = folderEntries(folder)
            #expect(entries.allSatisfy { $0 == "preferences.json" || Self.isTemporaryName($0) }, "run \(run): \(entries)")
            guard let bytes = readBytes(prefs) else {
                #expect(commits.isEmpty, "run \(run): \(commits.count) commits reported but no file")
                seenAbsent += 1
                continue
            }
            seenPresent += 1
            let doc = try PreferencesDocument.decode(bytes).get()
            let value = try #require(doc.fixedDarkMode as Bool?, "run \(run): file without a fixed appearance")
            if commits.isEmpty {
                #expect(value == true, "run \(run): the only commit that can precede the first report is light → dark")
            }
            #expect(commits.first != false, "run \(run): the first commit from light must be dark")
        }
        #expect(seenAbsent + seenPresent == Self.freshKills)
    }

    @Test func randomKillsNeverCorruptThePreferencesFile() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(Self.tapTrace(count: Self.taps), to: trace)
        let folder = dir.file("state")
        #expect(mkdir(folder, 0o700) == 0)
        let prefs = folder + "/preferences.json"
        // Other keys (a later version's settings, ~16 KB so a torn write would show) must
        // survive every rewrite byte for byte.
        var seed = JSONObject()
        seed["appearance"] = .string("light")
        seed["note"] = .string(String(repeating: "crash-safety ", count: 1260))
        seed["list"] = .array([.number(JSONNumber(1)!), .number(JSONNumber(2.5)!), .null])
        writeText(JSONWriter.pretty(.object(seed)), to: prefs)
        var expectedOthers = seed
        expectedOthers["appearance"] = nil

        var random = SeededRandom(seed: 0x5EED_0007)
        var current = false          // the value the next run starts from
        var backdated: Set<String> = []
        var killsDuringWrite = 0, totalCommits = 0
        for run in 0..<Self.kills {
            let child = try startReplay(dir, trace: trace, prefs: prefs, tag: "run\(run)")
            usleep(UInt32(random.uniform(0.1...0.6) * 1_000_000))
            child.kill(SIGKILL)
            let outcome = child.wait()
            #expect(outcome.signal == SIGKILL, "run \(run) ended by itself: \(outcome)")
            #expect(outcome.stderr.isEmpty, "run \(run) reported a problem: \(outcome.stderr)")
            let started = outcome.stdout.hasPrefix("{\"layout\"")
            let commits = Self.commitValues(outcome.stdout)
            totalCommits += commits.count
            // The run started from the saved value: its commits alternate away from it.
            for (i, v) in commits.enumerated() {
                #expect(v == (i % 2 == 0 ? !current : current), "run \(run): commit \(i + 1) is \(v) after starting from \(current)")
            }

            // Only the file and the protocol's temporary names; never a .bad- file.
            let entries = folderEntries(folder)
            #expect(entries.contains("preferences.json"), "run \(run): the file vanished: \(entries)")
            let temporaries = entries.filter(Self.isTemporaryName)
            #expect(entries.count == temporaries.count + 1, "run \(run): unexpected entries \(entries)")
            // A run that got as far as loading removes every stale (backdated) temporary file.
            if started {
                let survivors = backdated.intersection(temporaries)
                #expect(survivors.isEmpty, "run \(run): stale temporary files were not cleaned up: \(survivors)")
                backdated.subtract(backdated.subtracting(temporaries))
            }
            let fresh = temporaries.filter { !backdated.contains($0) }
            #expect(fresh.count <= 1, "run \(run): one run can leave at most one temporary file, found \(fresh)")
            killsDuringWrite += fresh.count
            for name in fresh {
                Self.backdate(FileIO.join(folder, name), seconds: 120)
                backdated.insert(name)
            }

            // The file is complete and valid, with every other key intact.
            let bytes = try #require(readBytes(prefs))
            let doc: PreferencesDocument
            switch PreferencesDocument.decode(bytes) {
            case .success(let d): doc = d
            case .failure(let p): Issue.record("run \(run): the file \(p): \(String(decoding: bytes.prefix(80), as: UTF8.self))"); return
            }
            let value = try #require(doc.fixedDarkMode as Bool?)
            var others = doc.object
            others["appearance"] = nil
            #expect(others == expectedOthers, "run \(run): other keys changed")
            // The last reported commit was saved; at most one more may have been saved after it.
            if let last = commits.last {
                #expect(value == last || value == !last)
            }
            current = value
        }

        // A final run to the end: loads cleanly, cleans up, and saves the right value.
        let short = dir.file("five.jsonl")
        writeText(Self.tapTrace(count: 5), to: short)
        let final = try runKiosk(["replay", short, "--size", "400x300", "--prefs", prefs], in: dir, tag: "final")
        #expect(final.status == 0)
        #expect(final.stderr.isEmpty, "\(final.stderr)")
        #expect(final.stdout.contains("\"isDarkMode\":\(!current)"), "\(final.stdout)")
        let doc = try PreferencesDocument.decode(readBytes(prefs) ?? []).get()
        #expect(doc.fixedDarkMode == !current)
        #expect(folderEntries(folder) == ["preferences.json"])
        print("crash safety: \(Self.kills) kills, \(totalCommits) commits reported, \(killsDuringWrite) kills left a temporary file (caught mid-write)")
    }
}
