import TidingsBase

/// The few facts of an ELF header that decide whether this process can load
/// a file: word size, byte order, machine and object type.
package struct ELFIdentity: Sendable, Equatable {
    /// 1 for 32-bit, 2 for 64-bit (`EI_CLASS`).
    package var wordSize: UInt8
    /// 1 for little-endian, 2 for big-endian (`EI_DATA`).
    package var byteOrder: UInt8
    /// `e_machine`, such as 62 for x86-64.
    package var machine: UInt16
    /// `e_type`: 3 for a shared object (`ET_DYN`).
    package var objectType: UInt16

    /// The header of `bytes`, or nil when they do not start like an ELF file.
    package init?(_ bytes: [UInt8]) {
        guard bytes.count >= 20, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46,
              bytes[4] == 1 || bytes[4] == 2, bytes[5] == 1 || bytes[5] == 2
        else { return nil }
        let littleEndian = bytes[5] == 1
        func half(_ offset: Int) -> UInt16 {
            littleEndian
                ? UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
                : UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }
        wordSize = bytes[4]
        byteOrder = bytes[5]
        objectType = half(16)
        machine = half(18)
    }

    /// The identity of the running executable, which every library it loads must share.
    package static let host: ELFIdentity? = {
        guard let bytes = try? FileSystem.readPrefix("/proc/self/exe", count: 64) else { return nil }
        return ELFIdentity(bytes)
    }()

    /// The file is a shared object (`ET_DYN`), the only kind `dlopen` takes as a library.
    package var isSharedObject: Bool { objectType == 3 }

    /// "64-bit little-endian x86-64", for messages.
    package var description: String {
        let bits = wordSize == 2 ? "64-bit" : "32-bit"
        let order = byteOrder == 1 ? "little-endian" : "big-endian"
        return "\(bits) \(order) \(machineName)"
    }

    private var machineName: String {
        switch machine {
        case 3: "x86"
        case 8: "MIPS"
        case 20: "PowerPC"
        case 21: "PowerPC 64"
        case 22: "S/390"
        case 40: "ARM"
        case 62: "x86-64"
        case 183: "AArch64"
        case 243: "RISC-V"
        case 258: "LoongArch"
        default: "machine \(machine)"
        }
    }
}
