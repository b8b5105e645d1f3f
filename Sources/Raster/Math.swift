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
