import Foundation
import Kiosk
import KioskSDL

/// The command-line front end: parse, dispatch, map errors to exit statuses (2 bad input,
/// 1 runtime failure). Never a stack trace for bad input.
func main() -> Int32 {
    let command: KioskCommand
    do {
        command = try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        return StandardError.report(error)
    }
    do {
        switch command {
        case .help(let sub):
            print(HelpText.text(for: sub))
            return 0
        case .version:
            print(KioskVersion.line)
            return 0
        case .render(let options):
            try RenderCommand.run(options)
            return 0
        case .replay(let options):
            try ReplayCommand.run(options) { print($0) }
            return 0
        case .bench(let options):
            if options.raster {
                print(RasterBenchmark.table(try RasterBenchmark.run()))
                print(ComponentBenchmark.table(ComponentBenchmark.run()))
                return 0
            }
            try BenchCommand.run(options) { print($0) }
            return 0
        case .run:
            StandardError.log("not available yet in this build")
            return 1
        }
    } catch let error as KioskError {
        return StandardError.report(error)
    } catch {
        return StandardError.report(.runtime("\(error)"))
    }
}

exit(main())
