import KioskEngine

/// Config `input.calibration` for the touch SDL delivers itself: under a compositor (cage,
/// Weston, an X server) and with SDL's own input on KMS/DRM (`DARKMODE_KIOSK_INPUT=sdl`). A
/// finger's window-normalised position (0…1 across the window; under cage the window is the
/// whole output, so the output as scanned out) goes through the matrix before
/// `PointerTranslator` takes it through `--rotate` to the page: the order `DeviceInputMapper`
/// uses for libinput's touches on KMS/DRM. A compositor has already applied its own libinput
/// matrix (the device's `LIBINPUT_CALIBRATION_MATRIX`): this one composes on top, which is what
/// `darkmode-kiosk calibrate` measures under the same compositor.
///
/// Mouse events, and the fingers SDL makes from a mouse (`SDL_MOUSE_TOUCHID`), pass as they
/// are: the matrix is a touch screen's. Pure.
public struct FingerCalibration: Sendable, Equatable {
    /// The config's matrix; nil: fingers pass as they are.
    public var matrix: CalibrationMatrix?
    /// `SDL_MOUSE_TOUCHID` (passed in to keep this type SDL-free).
    public let mouseTouchID: Int64

    public init(matrix: CalibrationMatrix?, mouseTouchID: Int64) {
        self.matrix = matrix
        self.mouseTouchID = mouseTouchID
    }

    /// `input` with a real finger's position through the matrix; anything else unchanged (a
    /// non-finite position too: `PointerTranslator` turns it into a cancel).
    public func apply(_ input: RawPointerInput) -> RawPointerInput {
        guard let matrix, case let .finger(phase, touchID, fingerID, x, y) = input,
              touchID != mouseTouchID, x.isFinite, y.isFinite else { return input }
        let p = matrix.apply(x: Double(x), y: Double(y))
        return .finger(phase: phase, touchID: touchID, fingerID: fingerID, x: Float(p.x), y: Float(p.y))
    }
}
