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

extension Array {
    /// The same elements in storage of exactly their count: what an array
    /// built by appending (which doubles its storage as it grows) should
    /// become before it is kept long, such as 100,000 records each held
    /// for days, where the slack would be a quarter of what they cost.
    @inlinable package var trimmed: [Element] {
        guard capacity > count else { return self }
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = buffer.initialize(fromContentsOf: self)
        }
    }
}
