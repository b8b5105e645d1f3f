import Foundation
import Testing
@testable import KioskTools

/// The README's usage block and `--help` come from the same flag table (`FlagSpec`).
@Suite struct SynopsisTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")

    /// The first fenced block after "## Using it".
    static func readmeUsage() throws -> String? {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let section = text.range(of: "## Using it\n") else { return nil }
        let rest = text[section.upperBound...]
        guard let open = rest.range(of: "```\n") else { return nil }
        let body = rest[open.upperBound...]
        guard let close = body.range(of: "```\n") else { return nil }
        return String(body[..<close.lowerBound])
    }

    @Test func readmeSynopsisEqualsHelp() throws {
        let usage = try #require(try Self.readmeUsage(), "no usage block under '## Using it' in README.md")
        #expect(usage == HelpText.usageBlock, "README.md's usage block differs from --help; paste:\n\(HelpText.usageBlock)")
        // --help prints the same lines, indented.
        let general = HelpText.general
        for line in usage.split(separator: "\n") { #expect(general.contains("  \(line)\n"), "--help lacks: \(line)") }
    }

    @Test func everyFlagAppearsInItsSynopsis() {
        for sub in KioskSubcommand.allCases {
            let synopsis = HelpText.synopsis(sub)
            for spec in FlagSpec.specs(for: sub) {
                #expect(synopsis.contains(spec.name), "\(sub) synopsis lacks \(spec.name)")
            }
        }
    }
}
