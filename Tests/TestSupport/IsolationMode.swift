/// Where a test's extensions run: the same behaviour is asked of both.
public enum IsolationMode: String, CaseIterable, Sendable, CustomStringConvertible {
    case inProcess = "in process"
    case worker = "in a worker"

    /// How a test's name shows the mode.
    public var description: String { rawValue }

    /// The value of `tidings --isolation` that runs extensions so.
    public var option: String { self == .worker ? "process" : "in-process" }
}
