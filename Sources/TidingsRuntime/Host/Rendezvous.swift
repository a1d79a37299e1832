import Synchronization
import TidingsBase

/// Where a value given once, on any thread, is taken by one thread that
/// waits for it: the synchronous face of a call that answers through a
/// callback. A value given before it is taken costs no wait and no gate.
package final class Rendezvous<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var gate: Latch?
    }

    private let state = Mutex(State())

    /// Nothing given yet.
    package init() {}

    /// Gives the value; only the first counts.
    package func give(_ value: Value) {
        let gate: Latch? = state.withLock { state in
            guard state.value == nil else { return nil }
            state.value = value
            return state.gate
        }
        gate?.open()
    }

    /// Waits until the value is given, and returns it.
    package func take() -> Value {
        let gate: Latch? = state.withLock { state in
            guard state.value == nil else { return nil }
            if state.gate == nil { state.gate = Latch() }
            return state.gate
        }
        while true {
            if let value = state.withLock({ $0.value }) { return value }
            _ = gate?.wait(until: UInt64.max)
        }
    }
}
