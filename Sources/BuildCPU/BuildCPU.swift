import Log
#if canImport(Glibc)
import Glibc
#endif

/// Whether this machine has the instruction-set extensions the build was compiled for.
///
/// On x86-64 the package is compiled for x86-64-v2 by default and for the building machine's CPU
/// with `DARKMODE_KIOSK_CPU=native` (Package.swift); such a binary copied to an older CPU would
/// die with SIGILL at its first AVX2 (or SSE4.2) instruction. The executable
/// checks first: it reads the build's extensions from `CBuildCPU` (a constant, folded in a module
/// compiled for that CPU) and hands them here. This module is compiled for plain x86-64 (the one
/// target Package.swift leaves out of the CPU setting), so the check itself runs anywhere.
public enum BuildCPU {
    /// The extensions, by their name in /proc/cpuinfo's `flags`; bit i of a mask is `features[i]`
    /// (the order of `darkmode_kiosk_build_cpu_features`). `abm` is how Linux names LZCNT.
    public static let features = ["ssse3", "sse4_1", "sse4_2", "popcnt", "avx", "avx2", "fma", "bmi1", "bmi2",
                                  "f16c", "movbe", "abm", "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"]

    /// The extensions in `mask` that the first `flags` line of `cpuinfo` lacks, in `features`
    /// order; nil when there is no such line (not x86 Linux, or unreadable: nothing to compare).
    public static func missing(mask: UInt64, cpuinfo: String) -> [String]? {
        guard let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
              let colon = line.firstIndex(of: ":") else { return nil }
        let have = Set(line[line.index(after: colon)...].split(separator: " ").map(String.init))
        return names(mask: mask).filter { !have.contains($0) }
    }

    /// The names of the extensions in `mask`, in `features` order.
    public static func names(mask: UInt64) -> [String] {
        features.indices.filter { mask & (1 << UInt64($0)) != 0 }.map { features[$0] }
    }

    /// What `--version` says of the build's CPU.
    public static func versionLine(mask: UInt64) -> String {
        let n = names(mask: mask)
        return "instruction-set extensions: " + (n.isEmpty ? "none beyond the architecture's baseline" : n.joined(separator: " "))
    }

    /// The line to print when the build's extensions are missing here, or nil.
    public static func problem(mask: UInt64, cpuinfo: String) -> String? {
        guard let lacking = missing(mask: mask, cpuinfo: cpuinfo), !lacking.isEmpty else { return nil }
        return "this binary was built for a CPU with " + lacking.joined(separator: ", ")
            + ", which this machine lacks; build it without DARKMODE_KIOSK_CPU (the default, x86-64-v2, runs on"
            + " x86-64 CPUs since 2009) or, for older ones, with DARKMODE_KIOSK_CPU=x86-64 (README, \"How it is built\")"
    }

    /// Checks this machine against `mask` (the build's extensions): on a mismatch writes one line
    /// to standard error and exits with status 1, before any code compiled for the build's CPU
    /// runs. Without /proc/cpuinfo it lets the program go on.
    public static func verify(mask: UInt64) {
        guard mask != 0, let text = readCPUInfo(), let line = problem(mask: mask, cpuinfo: text) else { return }
        Log.error(line)
        exit(1)
    }

    /// The first 64 KiB of /proc/cpuinfo (the first processor's lines are all that is read).
    static func readCPUInfo() -> String? {
        let fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while data.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += chunk[0..<n]
        }
        return String(decoding: data, as: UTF8.self)
    }
}
