extension Dictionary {
    /// Gives back the storage a dictionary that shrank no longer needs: when
    /// at most a quarter of its capacity is used (and it is not small), it is
    /// copied into storage sized for what it holds.
    ///
    /// A dictionary never shrinks by itself; one that held 100,000 entries
    /// keeps its megabytes after they are all removed. Calling this after
    /// each removal costs amortised constant time: a copy happens only once
    /// three quarters of the entries went since the storage was sized.
    @inlinable package mutating func releaseUnusedCapacity() {
        guard capacity > 1_024, count <= capacity / 4 else { return }
        var smaller = Self(minimumCapacity: count)
        for (key, value) in self { smaller[key] = value }
        self = smaller
    }
}
