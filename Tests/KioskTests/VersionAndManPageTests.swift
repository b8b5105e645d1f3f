import Foundation
import Testing
import CVersion
@testable import KioskTools
import KioskSupport

/// The version has one source, debian/changelog (Package.swift passes its first entry's
/// upstream version into the binary), and the man page is generated from `--help`'s tables.
@Suite struct VersionAndManPageTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The changelog's first entry, read here independently of Package.swift:
    /// `darkmode-kiosk (EPOCH:UPSTREAM-REVISION) …`.
    static func changelogUpstreamVersion() throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent("debian/changelog"), encoding: .utf8)
        let first = try #require(text.split(separator: "\n").first)
        let match = try #require(first.wholeMatch(of: /darkmode-kiosk \((?:\d+:)?([^ )]+?)(?:-[^-) ]+)?\) [a-z-]+; urgency=[a-z]+/),
                                 "debian/changelog's first line: \(first)")
        return String(match.1)
    }

    @Test func versionIsTheChangelogs() throws {
        let changelog = try Self.changelogUpstreamVersion()
        let built = String(cString: darkmode_kiosk_version())
        #expect(built == changelog,
                "the build says \(built), debian/changelog \(changelog): after editing the changelog by hand, touch Package.swift (SwiftPM caches its evaluation)")
        // (The real binary's --version against the installed package: Tests/e2e/deb-lifecycle.sh.)
    }

    /// The install commands name the package file of this version.
    @Test func installInstructionsNameThisVersionsPackage() throws {
        let deb = "darkmode-kiosk_\(try Self.changelogUpstreamVersion())_"
        for doc in ["README.md", "docs/run-as-kiosk.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(doc), encoding: .utf8)
            let named = text.ranges(of: "darkmode-kiosk_").map { text[$0.lowerBound...].prefix(deb.count) }
            #expect(!named.isEmpty, "\(doc) names no .deb")
            // (A placeholder, VERSION, or a shell glob, *, stands for any version.)
            for n in named where !n.hasPrefix("darkmode-kiosk_VERSION".prefix(n.count)) && !n.hasPrefix("darkmode-kiosk_*") {
                #expect(n == deb[...], "\(doc) names \(n)…, the changelog's package is \(deb)…")
            }
        }
    }

    @Test func manIsAHiddenStandAloneCommand() throws {
        #expect(try CommandLineParser.parse(["--man"]) == .manPage)
        #expect(throws: KioskError.self) { try CommandLineParser.parse(["--man", "--windowed"]) }
        #expect(!HelpText.general.contains("--man"))
    }

    @Test func manPageHasEveryFlagAndSummaryOfHelp() {
        let roff = ManPage.roff
        #expect(roff.hasPrefix(#".TH DARKMODE\-KIOSK 1 "" "darkmode\-kiosk "# + ManPage.escape(KioskVersion.string) + "\""))
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "FILES", "ENVIRONMENT", "EXIT STATUS", "SEE ALSO"] {
            #expect(roff.contains("\n.SH \(section)\n"), "section \(section)")
        }
        let lines = roff.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for sub in KioskSubcommand.allCases {
            #expect(roff.contains(ManPage.escape(HelpText.summaries[sub]!)), "\(sub)'s summary")
            for spec in FlagSpec.specs(for: sub) {
                // A switch: ".B --name"; a flag with a value: .BI "--name " "VALUE".
                let line = spec.valueName.map { #".BI ""# + ManPage.escape(spec.name) + #" " ""# + ManPage.escape($0) + "\"" }
                    ?? ".B " + ManPage.escape(spec.name)
                // In this command's own section (flags repeat across commands).
                let title = ".SS " + ManPage.escape(sub == .run ? "run (the default)" : sub.rawValue)
                let section = lines.firstIndex { $0 == title } ?? lines.endIndex
                let at = lines[section...].firstIndex { $0 == line }
                #expect(at != nil, "\(sub) \(spec.name): no line \(line)")
                if let at { #expect(lines[at + 1] == ManPage.escape(spec.help)[...], "\(sub) \(spec.name)'s help") }
            }
        }
        // The synopsis is --help's, line for line.
        for usage in HelpText.usageBlock.split(separator: "\n") {
            #expect(lines.contains(ManPage.escape(String(usage))[...]), "synopsis line \(usage)")
        }
        // roff: no blank lines, no text line that a leading . or ' would make a request, no raw
        // hyphen (a minus sign in options) or backslash, ASCII only.
        for line in lines {
            #expect(!line.isEmpty)
            #expect(line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "non-ASCII: \(line)")
            if !line.hasPrefix(".") {
                #expect(!line.hasPrefix("'"))
                let bare = line.replacing(/\\(-|e|&|\[u[0-9A-F]{4}\])/, with: "")
                #expect(!bare.contains("-") && !bare.contains("\\"), "a raw hyphen or backslash: \(line)")
            }
        }
    }

    @Test func escapeDefusesRoffSyntax() {
        #expect(ManPage.escape("--a-b") == #"\-\-a\-b"#)
        #expect(ManPage.escape(#"C:\x"#) == #"C:\ex"#)
        #expect(ManPage.escape(".x") == #"\&.x"#)
        #expect(ManPage.escape("'x") == #"\&'x"#)
        #expect(ManPage.escape("0 … 1 ≥") == #"0 \[u2026] 1 \[u2265]"#)
    }
}
