import Log
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BuildCPU
import Fleet
import CBuildCPU
import CVersion
import KioskEngine
import KioskSupport
import KioskTools
import Raster
import LogLimit
import KioskHost
import AppearanceBus
import SystemdNotify
import Text
import Threads

/// The command-line front end: parse, dispatch, map errors to exit statuses (2 bad input,
/// 1 runtime failure). Never a stack trace for bad input.
func main() -> Int32 {
    // Before anything compiled for the build's CPU runs: one clear line, not SIGILL, on a CPU
    // without the extensions this binary was compiled for.
    BuildCPU.verify(mask: darkmode_kiosk_build_cpu_features())
    KioskVersion.string = String(cString: darkmode_kiosk_version())
    ProcessSetup.start()
    // Before any thread starts: threads that libraries create without a size get at least
    // the stack the kiosk's own get, whatever RLIMIT_STACK was at start.
    ThreadStacks.setProcessDefault()
    // Under an address-space limit, no 64 MiB malloc arena per thread (see `MallocArenas`).
    MallocArenas.useOneUnderAddressSpaceLimit()
    let command: KioskCommand
    do {
        command = try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        return error.report()
    }
    do {
        switch command {
        case .help(let sub):
            StandardOutput.line(HelpText.text(for: sub))
            return 0
        case .version:
            StandardOutput.line(KioskVersion.line)
            StandardOutput.line(BuildCPU.versionLine(mask: darkmode_kiosk_build_cpu_features()))
            StandardOutput.line("span kernels: " + (Kernels.avx2Available ? "avx2 (the x86-64-v3 copy, chosen for this CPU)"
                                                    : "baseline (this CPU has no AVX2)"))
            return 0
        case .manPage:
            StandardOutput.write(ManPage.roff)
            return 0
        case .run(let options):
            return try runKiosk(options)
        case .render(let options):
            try RenderCommand.run(options, environment: processEnvironment())
            return 0
        case .replay(let options):
            try ReplayCommand.run(options) { StandardOutput.line($0) }
            return 0
        case .bench(let options):
            if options.raster {
                try RasterBenchmark.command { StandardOutput.line($0) }
                return 0
            }
            try BenchCommand.run(options) { StandardOutput.line($0) }
            return 0
        case .soak(let options):
            try SoakCommand.run(minutes: options.minutes, seed: options.seed,
                                size: options.size ?? PixelSize(width: 1280, height: 800), scale: options.scale ?? 1) { StandardOutput.line($0) }
            return 0
        case .calibrate(let options):
            return try runCalibrate(options)
        }
    } catch let error as KioskError {
        return error.report()
    } catch {
        return KioskError.runtime("\(error)").report()
    }
}

/// The process environment as a dictionary (what `RunSettings` reads XDG paths from).
func processEnvironment() -> [String: String] {
    var env: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let s = String(cString: entry)
        if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
        p += 1
    }
    return env
}

exit(main())
