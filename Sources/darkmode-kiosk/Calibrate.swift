import KioskEngine
import KioskHost
import KioskSupport
import KioskTools
import Log

/// `darkmode-kiosk calibrate`: the config file checked first (before anyone touches a target),
/// the round on the display (`CalibrationHost`), then the matrix written to the file's
/// `input.calibration` (`CalibrationConfigFile`, atomic, other keys kept) and said
/// (`CalibrationReport`). Exit status 0 when written, 2 for a bad config file, 1 otherwise.
func runCalibrate(_ options: CalibrateOptions) throws(KioskError) -> Int32 {
    let environment = HostEnvironment.parse(processEnvironment())
    for warning in environment.warnings { Log.warning(warning) }
    let path = options.configPath ?? CalibrationConfigFile.defaultPath
    _ = try CalibrationConfigFile.check(path: path)
    let outcome: CalibrationHost.Outcome
    switch CalibrationHost.run(rotation: options.rotate, deviceName: options.deviceName, environment: environment,
                               say: { StandardOutput.line($0) }) {
    case .success(let o): outcome = o
    case .failure(let f): throw .runtime(f.message)
    }
    try CalibrationConfigFile.write(outcome.result.matrix, to: path)
    let report = CalibrationReport(result: outcome.result, deviceName: outcome.deviceName, configPath: path, rotation: options.rotate,
                                   underCompositor: outcome.underCompositor)
    StandardOutput.line(report.summary)
    if let written = report.written { StandardOutput.line(written) }
    if options.printResult { for line in report.printed { StandardOutput.line(line) } }
    return 0
}
