import Synchronization
import TidingsRegistry

/// The index a host serves now, shared by its stages; a server replaces it
/// when the bundles on the search path change.
final class CurrentIndex: Sendable {
    private let index: Mutex<ExtensionIndex>

    /// Starts with `index`.
    init(_ index: ExtensionIndex) {
        self.index = Mutex(index)
    }

    /// The index now.
    var value: ExtensionIndex { index.withLock { $0 } }

    /// Serves `new` from now on.
    func replace(with new: ExtensionIndex) {
        index.withLock { $0 = new }
    }
}
