import TidingsBase

/// NUL-terminated UTF-8 strings laid end to end in one growing buffer, each
/// named by its offset, for the ABI's C structs to point into once the
/// buffer is complete and copied to where they live.
struct CStringTable {
    /// The strings, each followed by a NUL byte.
    private(set) var bytes: [UInt8] = []

    /// An empty table with room for `capacity` bytes.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` and returns its offset.
    mutating func add(_ text: String) -> Int {
        let offset = bytes.count
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
        return offset
    }

    /// Appends `text` and returns its offset; nil for nil.
    mutating func add(_ text: String?) -> Int? {
        text.map { add($0) }
    }

    /// Appends the compact JSON text of `value` and returns its offset.
    mutating func add(json value: JSON) -> Int {
        let offset = bytes.count
        value.serialize(into: &bytes)
        bytes.append(0)
        return offset
    }
}
