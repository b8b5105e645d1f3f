/// A motion parameter that cannot describe a valid curve or spring, naming the parameter, the
/// value given and what was expected. Thrown by the `checked` factories, which are meant for
/// values that come from data (configuration, traces) rather than from code.
public struct MotionParameterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The parameter's name, e.g. "Spring.response".
    public var parameter: String
    /// The offending value.
    public var value: Double
    /// What a valid value looks like, e.g. "a finite number > 0".
    public var expected: String

    public init(parameter: String, value: Double, expected: String) {
        self.parameter = parameter
        self.value = value
        self.expected = expected
    }

    public var description: String { "\(parameter): got \(value), expected \(expected)" }
}
