import Foundation
import Testing

/// The engine is pure: the compiler stops it importing SDL, the support or the tools targets
/// (they are not its dependencies), but the platform modules are always importable, so this
/// test reads the engine's sources and fails on any import other than its three dependencies.
@Suite struct EngineImportTests {
    static let engineFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/KioskEngine")

    /// Its three dependencies, and the standard library's `Synchronization` (a `Mutex`: lanes
    /// that draw a frame at once take turns with the typesetter's glyph cache; no I/O, no clock).
    static let allowed: Set<String> = ["DarkModeToggle", "Raster", "Appearance", "Synchronization"]

    /// The modules a Swift source imports (`import X`, `@testable import X`, `import struct X.Y`).
    static func imports(in source: String) -> [String] {
        source.split(separator: "\n", omittingEmptySubsequences: false).compactMap { raw in
            var words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            while let w = words.first, w.hasPrefix("@") || ["public", "internal", "private", "fileprivate", "package"].contains(w) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { return nil }
            let kinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]
            let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            return String(path.split(separator: ".").first ?? "")
        }
    }

    @Test func theScannerSeesImports() {
        #expect(Self.imports(in: "import Glibc\n#if canImport(Foundation)\n  import Foundation\n#endif") == ["Glibc", "Foundation"])
        #expect(Self.imports(in: "@testable import KioskSupport\nimport struct Glibc.timespec") == ["KioskSupport", "Glibc"])
        #expect(Self.imports(in: "// import Glibc is not allowed\nlet importance = 1").isEmpty)
    }

    @Test func engineImportsOnlyItsDependencies() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.engineFolder.path)
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 5, "found only \(files) under \(Self.engineFolder.path)")
        for file in files {
            let text = try String(contentsOf: Self.engineFolder.appendingPathComponent(file), encoding: .utf8)
            for module in Self.imports(in: text) where !Self.allowed.contains(module) {
                Issue.record("Sources/KioskEngine/\(file) imports \(module); the engine may import only \(Self.allowed.sorted())")
            }
        }
    }
}
