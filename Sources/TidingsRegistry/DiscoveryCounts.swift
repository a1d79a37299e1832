/// How discovery came by the bundles of an index: from the index cache, or
/// by reading their files.
package struct DiscoveryCounts: Sendable, Equatable {
    /// Bundles whose cache entry still matched their files.
    package var fromCache = 0
    /// Bundles read from their files.
    package var read = 0

    /// Counts of `fromCache` and `read` bundles.
    package init(fromCache: Int = 0, read: Int = 0) {
        self.fromCache = fromCache
        self.read = read
    }
}
