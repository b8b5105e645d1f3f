import CRasterCPU
import Synchronization

/// Which copy of the span kernels runs: `Blend` as compiled with the package (the portable
/// baseline, x86-64-v2 on x86-64), or its second copy, the module `RasterAVX2` — the very same
/// source file compiled for x86-64-v3 (AVX2: eight pixels per instruction where the baseline
/// has four). Chosen once at start by what the CPU offers, so the one portable binary runs at
/// native speed where it can and stays correct everywhere; both copies give bit-identical
/// pixels (KernelDispatchTests, and the golden tests on both).
///
/// Each public span of `Blend` begins with the choice: one predictable branch per span.
public enum Kernels {
    public enum Level: String, CaseIterable, Sendable {
        /// The package's own build of `Blend`.
        case baseline
        /// `RasterAVX2`: x86-64-v3 (AVX2, FMA, BMI1/2, F16C, MOVBE, LZCNT).
        case avx2
    }

    /// Whether this CPU and its OS can run the x86-64-v3 copy.
    public static let avx2Available = darkmode_kiosk_cpu_runs_x86_64_v3() != 0

    @usableFromInline static let avx2Chosen = Atomic<Bool>(avx2Available)

    /// True while the x86-64-v3 copy is chosen (read by every span; a relaxed load).
    @inlinable static var useAVX2: Bool { avx2Chosen.load(ordering: .relaxed) }

    /// The copy that runs now.
    public static var level: Level { useAVX2 ? .avx2 : .baseline }

    /// The best this machine runs.
    public static var best: Level { avx2Available ? .avx2 : .baseline }

    /// Makes `level` the copy that runs; false (and nothing changed) when this machine cannot run it.
    @discardableResult
    public static func choose(_ level: Level) -> Bool {
        guard level == .baseline || avx2Available else { return false }
        avx2Chosen.store(level == .avx2, ordering: .relaxed)
        return true
    }
}
