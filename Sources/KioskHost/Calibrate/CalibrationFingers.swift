import DarkModeToggle

/// Which of SDL's finger events press calibrate's targets under a compositor, pure. The first
/// finger down is the press; its moves are readings and its lift ends it; other fingers are
/// ignored meanwhile. The touch device of the first press is the one used from then on (under
/// cage there is one: the compositor merges its touch screens). Positions stay as SDL gives
/// them: normalised to the window, which under cage is the whole output, so the matrix fitted
/// from them maps the touch as the compositor delivers it to the output as scanned out.
///
/// The mouse is not calibrated (`FingerCalibration` never applies the matrix to it): mouse
/// events and the fingers SDL makes from a mouse (`SDL_MOUSE_TOUCHID`) are ignored.
struct CalibrationFingers: Sendable {
    /// What an event does to the round.
    enum Step: Sendable, Equatable {
        case press(x: Double, y: Double)
        case move(x: Double, y: Double)
        case release
        /// The press ended without a lift (the window lost the touch): no sample.
        case cancel
    }

    /// `SDL_MOUSE_TOUCHID` (passed in to keep this type SDL-free).
    let mouseTouchID: Int64
    /// The touch device used (SDL's id), once a finger went down.
    private(set) var device: Int64?
    /// The finger pressing now.
    private var pressing: Int64?

    init(mouseTouchID: Int64) {
        self.mouseTouchID = mouseTouchID
    }

    /// The step for one input; nil when it does not count.
    mutating func take(_ input: RawPointerInput) -> Step? {
        guard case let .finger(phase, touchID, fingerID, x, y) = input, touchID != mouseTouchID else { return nil }
        if let device, touchID != device { return nil }
        let finite = x.isFinite && y.isFinite
        switch phase {
        case .down:
            guard pressing == nil, finite else { return nil }
            device = touchID
            pressing = fingerID
            return .press(x: Double(x), y: Double(y))
        case .move:
            guard fingerID == pressing, finite else { return nil }
            return .move(x: Double(x), y: Double(y))
        case .up, .cancel:
            guard fingerID == pressing else { return nil }
            pressing = nil
            return phase == .up ? .release : .cancel
        }
    }

    /// The window lost its touch (focus gone, hidden): a press in progress is cancelled.
    mutating func lost() -> Step? {
        guard pressing != nil else { return nil }
        pressing = nil
        return .cancel
    }
}
