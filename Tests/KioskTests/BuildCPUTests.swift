import Foundation
import Testing
import BuildCPU
import CBuildCPU

/// The start-up check of the CPU the build is for (the end-to-end check, with a /proc/cpuinfo
/// lacking the extensions, is Tests/e2e/cpu-check.sh).
@Suite struct BuildCPUTests {
    static let flags = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 ssse3 sse4_1 sse4_2 popcnt avx avx2 fma bmi1 bmi2\n"

    static func mask(_ names: [String]) -> UInt64 {
        names.reduce(0) { $0 | 1 << UInt64(BuildCPU.features.firstIndex(of: $1)!) }
    }

    @Test func namesWhatTheFlagsLackInTheFeaturesOrder() {
        let m = Self.mask(["avx512f", "avx2", "movbe", "sse4_2"])
        #expect(BuildCPU.missing(mask: m, cpuinfo: Self.flags) == ["movbe", "avx512f"])
        #expect(BuildCPU.missing(mask: Self.mask(["avx2", "fma", "ssse3"]), cpuinfo: Self.flags) == [])
        #expect(BuildCPU.missing(mask: 0, cpuinfo: Self.flags) == [])
        // A name is a whole word: "avx" is not "avx2".
        #expect(BuildCPU.missing(mask: Self.mask(["avx2"]), cpuinfo: "flags\t: sse2 avx avx2x\n") == ["avx2"])
    }

    @Test func withoutAFlagsLineNothingIsCompared() {
        #expect(BuildCPU.missing(mask: Self.mask(["avx2"]), cpuinfo: "processor\t: 0\nFeatures\t: fp asimd\n") == nil)
        #expect(BuildCPU.problem(mask: Self.mask(["avx2"]), cpuinfo: "") == nil)
    }

    @Test func theProblemLineSaysWhatIsMissingAndWhatToDo() {
        let line = BuildCPU.problem(mask: Self.mask(["avx2", "avx512f"]), cpuinfo: Self.flags)
        #expect(line?.hasPrefix("this binary was built for a CPU with avx512f, which this machine lacks") == true)
        #expect(line?.contains("DARKMODE_KIOSK_CPU=x86-64") == true)
        #expect(BuildCPU.problem(mask: Self.mask(["avx2"]), cpuinfo: Self.flags) == nil)
    }

    @Test func theHeaderAndTheNamesAgree() {
        // The test target is compiled for the same CPU as the executable (Package.swift).
        let built = darkmode_kiosk_build_cpu_features()
        #expect(built >> UInt64(BuildCPU.features.count) == 0, "a bit beyond the named extensions")
        #expect(BuildCPU.names(mask: built).count == built.nonzeroBitCount)
        #expect(BuildCPU.versionLine(mask: 0) == "instruction-set extensions: none beyond the architecture's baseline")
        #expect(BuildCPU.versionLine(mask: Self.mask(["ssse3", "avx2"])) == "instruction-set extensions: ssse3 avx2")
    }

    /// The default build (no DARKMODE_KIOSK_CPU) is portable: on x86-64 it needs nothing beyond
    /// x86-64-v2 (SSSE3, SSE4.1, SSE4.2, POPCNT), so it runs on QEMU's CPU and on every x86-64
    /// board since 2009; on arm64 no x86 extension is named at all.
    @Test func theDefaultBuildNeedsOnlyTheBaseline() {
        #if DARKMODE_KIOSK_BASELINE_CPU
        let names = BuildCPU.names(mask: darkmode_kiosk_build_cpu_features())
        #if arch(x86_64)
        #expect(names == ["ssse3", "sse4_1", "sse4_2", "popcnt"])
        #else
        #expect(names == [])
        #endif
        #endif
    }

    @Test func thisMachineRunsThisBuild() throws {
        let text = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let missing = BuildCPU.missing(mask: darkmode_kiosk_build_cpu_features(), cpuinfo: text)
        #expect(missing == nil || missing == [])
    }
}
