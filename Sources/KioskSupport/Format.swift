/// Number formatting and small statistics for reports (bench, soak, host timing lines).

/// `x` with exactly `digits` decimals (no Foundation formatter needed), e.g. 3.14159 → "3.142".
public func fixed(_ x: Double, _ digits: Int) -> String {
    guard x.isFinite, abs(x) < 1e15 else { return x.isNaN ? "nan" : (x > 0 ? "inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(x) * scale).rounded()
    let whole = Int(scaled / scale), fraction = Int(scaled.truncatingRemainder(dividingBy: scale))
    let sign = x < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return sign + String(whole) }
    let f = String(fraction)
    return sign + String(whole) + "." + String(repeating: "0", count: digits - f.count) + f
}

/// The median of `values` (mean of the middle two for an even count), nil when empty.
public func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The `p` quantile (0…1) of already sorted values, by the nearest rank on (count − 1)·p;
/// nil when empty.
public func percentile(sorted values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    return values[min(values.count - 1, max(0, Int((Double(values.count - 1) * p).rounded())))]
}

/// `x` rounded to `places` decimals, for stable machine-readable output (JSON reports).
public func rounded(_ x: Double, places: Int) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (x * scale).rounded() / scale
}
