/// A struct of the C ABI that begins with `uint32_t struct_size` and grows
/// only by appending fields (tidings.h, "Versions"): whoever fills one sets
/// `struct_size` to the size it was compiled with, and whoever reads one
/// reads no byte beyond that size.
///
/// `read(from:)` and `update(at:_:)` are how the host reads and writes every
/// struct an extension made (and how the SDK reads those the host made): a
/// struct is taken when its size is at least the size of the version that
/// introduced it, only the bytes its size covers are copied, and every field
/// beyond takes the default the header documents. Never `pointee` of the
/// whole type, which may be larger than what the other side gave.
///
/// Only C structs of plain values (numbers, pointers, function pointers)
/// conform: they are copied byte for byte.
package protocol SizedStruct {
    /// The smallest `struct_size` accepted: the struct's size in the version
    /// that introduced it (the header's `TIDINGS_…_SIZE_V…`).
    static var introducedSize: Int { get }
    /// Every field at the default the header gives it, which a field beyond
    /// the size given takes; zero, unless the struct says otherwise.
    static var defaults: Self { get }
    /// Every field zero (NULL, false, 0), as C's `{0}`.
    init()
}

extension SizedStruct {
    /// Every field zero: the header's default for most fields.
    package static var defaults: Self { Self() }

    /// The size of the struct up to and including `field` (the header's
    /// `TIDINGS_SIZE_THROUGH`).
    package static func size<Field>(through field: KeyPath<Self, Field>) -> Int {
        (MemoryLayout<Self>.offset(of: field) ?? MemoryLayout<Self>.size) + MemoryLayout<Field>.size
    }

    /// A copy of the struct at `pointer`: the bytes its `struct_size` covers
    /// (as far as this type reaches) over `defaults`. Nil for NULL or a
    /// struct smaller than `introducedSize`, of which nothing but its size
    /// is read.
    /// Thread: any. Ownership: `pointer` is borrowed for the call; the copy
    /// holds the other side's pointers as they were.
    package static func read(from pointer: UnsafeRawPointer?) -> Self? {
        SizedStructReader.read(from: pointer, introducedSize: introducedSize, defaults: defaults)
    }

    /// Reads the struct at `pointer` as `read(from:)` does, lets `change`
    /// alter the copy, and writes back only the bytes its `struct_size`
    /// covers. False, with nothing written, for NULL or an undersized struct.
    /// Thread: any. Ownership: `pointer` is borrowed for the call.
    @discardableResult
    package static func update(at pointer: UnsafeMutableRawPointer?, _ change: (inout Self) -> Void) -> Bool {
        guard var value = read(from: pointer), let pointer else { return false }
        // The size the copy was made with, not one read again: the other side may change it meanwhile.
        let given = withUnsafeBytes(of: value) { Int($0.loadUnaligned(as: UInt32.self)) }
        change(&value)
        withUnsafeBytes(of: value) { bytes in
            pointer.copyMemory(from: bytes.baseAddress!, byteCount: min(given, bytes.count))
        }
        return true
    }
}

/// The reading of `SizedStruct`, for a struct type that cannot conform
/// (one a caller of a public API names).
package enum SizedStructReader {
    /// A copy of the struct at `pointer` made of the bytes its leading
    /// `struct_size` covers over `defaults`; nil for NULL or a size below
    /// `introducedSize`, of which nothing but the size is read.
    /// Thread: any. Ownership: `pointer` is borrowed for the call.
    package static func read<Struct>(from pointer: UnsafeRawPointer?, introducedSize: Int, defaults: Struct) -> Struct? {
        guard let pointer else { return nil }
        let given = Int(pointer.loadUnaligned(as: UInt32.self))
        guard given >= max(introducedSize, MemoryLayout<UInt32>.size) else { return nil }
        var value = defaults
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: min(given, bytes.count)))
        }
        return value
    }
}
