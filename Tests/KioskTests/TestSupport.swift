#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// A fresh temporary folder, removed (recursively) by `cleanup()`.
final class TempFolder {
    let path: String

    init() {
        var template = Array("/tmp/kiosk-test-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(p != nil, "mkdtemp failed")
        path = String(cString: p!)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func cleanup() {
        _ = try? FileManager.default.removeItem(atPath: path)
    }

    deinit { cleanup() }
}

func writeBytes(_ bytes: [UInt8], to path: String) {
    let ok = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    precondition(ok, "could not create \(path)")
}

func writeText(_ text: String, to path: String) { writeBytes(Array(text.utf8), to: path) }

func readBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { Array($0) }
}

func readText(_ path: String) -> String? { readBytes(path).map { String(decoding: $0, as: UTF8.self) } }

func isSymlink(_ path: String) -> Bool {
    guard let st = FileIO.lstatInfo(path) else { return false }
    return (st.st_mode & S_IFMT) == S_IFLNK
}

func isRegularFile(_ path: String) -> Bool {
    guard let st = FileIO.lstatInfo(path) else { return false }
    return (st.st_mode & S_IFMT) == S_IFREG
}

func folderEntries(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}

let runningAsRoot = geteuid() == 0

