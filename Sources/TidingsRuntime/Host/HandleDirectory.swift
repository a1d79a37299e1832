import Synchronization

/// The process's small directory of whoever issued the ABI's handles, so
/// that a host function given only a handle finds its host.
///
/// Context handles and completion tokens are numbers. Each carries, in its
/// high 16 bits, the slot of its issuer (a host's `HostEndpoint`, or the
/// own of a process that runs an extension for a host elsewhere), and
/// below them a number drawn from one counter of the process, never given
/// twice: so a handle leads back to its own
/// issuer's tables only, and a handle of an issuer that is gone names
/// nothing in the one that took its slot since. The directory keeps weak
/// references and the counter, and nothing of any host's state: two hosts
/// in one process see nothing of each other's contexts or completions.
package final class HandleDirectory: Sendable {
    /// The directory of the process. Process-wide because the host
    /// functions are: a C function pointer carries no host, only the handle
    /// it is given, so whatever resolves a handle is one for the process.
    /// It holds no host's state (see above), so hosts stay independent.
    package static let shared = HandleDirectory()

    /// The bits of a handle below its slot.
    private static let numberBits: UInt64 = 48
    /// The most issuers that may live at once.
    private static let slotCount = 1 << 16 - 1

    /// An occupied slot: a weak reference to its issuer, once bound.
    private struct Entry {
        weak var owner: (any HandleOwner)?
    }

    private struct Table {
        /// Slot `n` is `entries[n - 1]`; nil while free.
        var entries: [Entry?] = []
        /// Free slots below `entries.count`.
        var free: [Int] = []
    }

    private let table = Mutex(Table())
    private let counter = Atomic<UInt64>(1)

    /// The slot of `handle`: 1 and up for a handle a slot issued, 0 for none.
    package static func slot(of handle: UInt64) -> UInt64 {
        handle >> numberBits
    }

    /// The issuer of `handle`, if it still lives.
    /// Thread: any.
    package func owner(of handle: UInt64) -> (any HandleOwner)? {
        let slot = Int(Self.slot(of: handle))
        guard slot > 0 else { return nil }
        return table.withLock { table in
            slot <= table.entries.count ? table.entries[slot - 1]?.owner : nil
        }
    }

    /// Makes `slot`'s handles lead to `owner`, held weakly.
    package func bind(_ slot: HandleSlot, to owner: any HandleOwner) {
        table.withLock { $0.entries[Int(slot.number) - 1] = Entry(owner: owner) }
    }

    /// Takes a free slot, which stays taken until `release(_:)`.
    fileprivate func reserve() -> UInt64 {
        table.withLock { table in
            if let slot = table.free.popLast() {
                table.entries[slot - 1] = Entry()
                return UInt64(slot)
            }
            precondition(table.entries.count < Self.slotCount, "More than \(Self.slotCount) hosts live in one process.")
            table.entries.append(Entry())
            return UInt64(table.entries.count)
        }
    }

    /// Frees `slot` for another issuer.
    fileprivate func release(_ slot: UInt64) {
        table.withLock { table in
            table.entries[Int(slot) - 1] = nil
            table.free.append(Int(slot))
        }
    }

    /// A new handle of `slot`, never issued before in this process.
    fileprivate func makeHandle(in slot: UInt64) -> UInt64 {
        slot << Self.numberBits | counter.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}

/// One slot of the directory, held by an issuer's tables: it issues their
/// handles, and frees the slot when the last of them lets it go.
package final class HandleSlot: Sendable {
    /// The slot, 1 and up.
    package let number: UInt64

    /// Takes a free slot of the process's directory.
    package init() {
        number = HandleDirectory.shared.reserve()
    }

    deinit {
        HandleDirectory.shared.release(number)
    }

    /// A new handle of this slot, never issued before in this process.
    package func makeHandle() -> UInt64 {
        HandleDirectory.shared.makeHandle(in: number)
    }
}
