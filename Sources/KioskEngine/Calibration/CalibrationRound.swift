/// One calibration on the spot, pure (`darkmode-kiosk calibrate`): the targets, the readings
/// while each is pressed, the samples, the fit and its check. The host feeds it device-normalised
/// readings (0…1 on each axis, no matrix applied) and draws what it says (`CalibrationPicture`).
///
/// - Targets: four near the page's corners (10 % in from each edge, as the viewer sees the page
///   with `--rotate`), then the check point, off-centre (35 %, 60 %) so that a wrong sample in any
///   corner moves the prediction there. Their positions for the fit are output-normalised (the
///   output as scanned out, before the page's rotation): libinput's matrix maps to those.
/// - A sample is the median of the readings from the press to the release, x and y on their own:
///   a stray reading (a resistive panel's spike as the finger lands) and jitter do not move it.
/// - After the fourth target the matrix is fitted (`CalibrationFit`); after the check point the
///   fitted matrix must put the check sample within `tolerance` output pixels of the check target.
///   A refused fit or a missed check restarts the round from the first target (`restarts`).
public struct CalibrationRound: Sendable {
    /// Where a target is: page pixels (to draw it) and output-normalised (to fit against).
    public struct Target: Sendable, Equatable {
        public var pageX, pageY: Double
        public var outputX, outputY: Double
    }

    /// What a release did.
    public enum Step: Sendable, Equatable {
        /// The sample was taken; `index` is the target to touch next.
        case next(index: Int)
        /// The round was refused and starts again at the first target; `reason` says why.
        case restart(reason: String)
        /// The calibration is done.
        case done(CalibrationResult)
    }

    /// The targets' page fractions (as the viewer sees the page): four fitted, then the check.
    public static let pageFractions: [(x: Double, y: Double)] = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.35, 0.6)]
    /// How many of the targets are fitted (the rest, one, is the check point).
    public static let fittedCount = 4

    public let targets: [Target]
    public let outputWidth: Int
    public let outputHeight: Int
    /// The largest check-point error accepted, in output pixels: 2 % of the output's shorter
    /// side, at least 8 px (a finger's tip is several millimetres).
    public let tolerance: Double
    /// The target to touch now.
    public private(set) var index = 0
    /// Rounds refused so far.
    public private(set) var restarts = 0
    /// The samples of this round, one per target touched, device-normalised.
    public private(set) var samples: [(x: Double, y: Double)] = []
    /// The readings of the press in progress; nil while nothing is pressed.
    private var readings: [(x: Double, y: Double)]?
    /// The matrix fitted from the first four samples of this round.
    private var fitted: CalibrationMatrix?

    /// Targets for a page of `pageWidth`×`pageHeight` pixels shown turned by `rotation` on an
    /// output of (the same pixels, axes swapped for 90° and 270°).
    public init(pageWidth: Int, pageHeight: Int, rotation: Rotation) {
        let pw = Double(pageWidth), ph = Double(pageHeight)
        targets = Self.pageFractions.map { f in
            let o = Self.outputNormalised(pageX: f.x, pageY: f.y, rotation: rotation)
            return Target(pageX: f.x * pw, pageY: f.y * ph, outputX: o.x, outputY: o.y)
        }
        outputWidth = rotation.swapsAxes ? pageHeight : pageWidth
        outputHeight = rotation.swapsAxes ? pageWidth : pageHeight
        tolerance = max(8, 0.02 * Double(min(outputWidth, outputHeight)))
    }

    /// A page-normalised position (as the viewer sees it) on the output, normalised: the inverse
    /// of the presenter's turn (`Viewport.outputPixel(fromPage:)`).
    public static func outputNormalised(pageX u: Double, pageY v: Double, rotation: Rotation) -> (x: Double, y: Double) {
        switch rotation {
        case .none: return (u, v)
        case .clockwise90: return (1 - v, u)
        case .upsideDown: return (1 - u, 1 - v)
        case .clockwise270: return (v, 1 - u)
        }
    }

    /// True while a press is being read.
    public var pressed: Bool { readings != nil }

    /// The check point's index.
    public var checkIndex: Int { Self.fittedCount }

    /// A touch down (or a button press at the pointer's position).
    public mutating func press(x: Double, y: Double) {
        guard x.isFinite, y.isFinite else { return }
        if readings == nil { readings = [] }
        readings?.append((x, y))
    }

    /// A move while pressed: one more reading. Moves while nothing is pressed are ignored.
    public mutating func move(x: Double, y: Double) {
        guard readings != nil, x.isFinite, y.isFinite else { return }
        readings?.append((x, y))
    }

    /// The press was cancelled (the device went away, events were lost): no sample.
    public mutating func cancel() { readings = nil }

    /// The release: the press's median is this target's sample. Nil when nothing was pressed.
    public mutating func release() -> Step? {
        guard let taken = readings, !taken.isEmpty else { readings = nil; return nil }
        readings = nil
        samples.append((Self.median(taken.map(\.x)), Self.median(taken.map(\.y))))
        if samples.count == Self.fittedCount {
            let pairs = (0..<Self.fittedCount).map { i in
                CalibrationFit.Pair(device: samples[i], target: (targets[i].outputX, targets[i].outputY))
            }
            switch CalibrationFit.fit(pairs) {
            case .success(let m): fitted = m
            case .failure(let refusal): return restart(refusal.description)
            }
        }
        if samples.count < targets.count {
            index = samples.count
            return .next(index: index)
        }
        guard let matrix = fitted else { return restart("no fit") }
        let check = samples[checkIndex], target = targets[checkIndex]
        let error = checkError(matrix, sample: check, target: target)
        guard error <= tolerance else {
            return restart("the check point was missed by \(Self.pixels(error)) px (at most \(Self.pixels(tolerance)) px): a target was touched off its centre")
        }
        return .done(CalibrationResult(matrix: matrix, checkErrorPixels: error, samples: samples, restarts: restarts))
    }

    /// Distance in output pixels between where `matrix` puts `sample` and `target`.
    func checkError(_ matrix: CalibrationMatrix, sample: (x: Double, y: Double), target: Target) -> Double {
        let p = matrix.apply(x: sample.x, y: sample.y)
        let dx = (p.x - target.outputX) * Double(outputWidth), dy = (p.y - target.outputY) * Double(outputHeight)
        return (dx * dx + dy * dy).squareRoot()
    }

    private mutating func restart(_ reason: String) -> Step {
        samples = []
        fitted = nil
        index = 0
        restarts += 1
        return .restart(reason: reason)
    }

    /// The median (the mean of the middle two for an even count); 0 for none.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted(), m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }

    /// A pixel distance with one decimal ("0.4").
    public static func pixels(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}

/// A finished calibration.
public struct CalibrationResult: Sendable, Equatable {
    public var matrix: CalibrationMatrix
    /// How far the check point's touch landed from it through `matrix`, in output pixels.
    public var checkErrorPixels: Double
    public var samples: [(x: Double, y: Double)]
    /// Rounds refused before this one.
    public var restarts: Int

    public init(matrix: CalibrationMatrix, checkErrorPixels: Double, samples: [(x: Double, y: Double)], restarts: Int) {
        self.matrix = matrix
        self.checkErrorPixels = checkErrorPixels
        self.samples = samples
        self.restarts = restarts
    }

    public static func == (l: CalibrationResult, r: CalibrationResult) -> Bool {
        l.matrix == r.matrix && l.checkErrorPixels == r.checkErrorPixels && l.restarts == r.restarts
            && l.samples.elementsEqual(r.samples) { $0 == $1 }
    }
}
