#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@usableFromInline func _cos(_ x: Double) -> Double { cos(x) }
@usableFromInline func _sin(_ x: Double) -> Double { sin(x) }

/// Clamps `x` into `lo...hi`; NaN becomes `lo`.
@inlinable public func clamp(_ x: Double, _ lo: Double, _ hi: Double) -> Double {
    x >= lo ? (x <= hi ? x : hi) : lo
}

@inlinable public func lerp(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }

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
