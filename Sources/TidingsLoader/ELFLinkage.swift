import Glibc
import TidingsBase

/// What a 64-bit little-endian ELF shared object says about linking it,
/// read from its section headers without mapping or running it: its soname,
/// the libraries it needs, where it looks for them, and the dynamic symbols
/// it defines and needs.
///
/// The file is hostile input: every offset and size is checked against the
/// file's size and bounded before anything is read.
package struct ELFLinkage: Sendable {
    /// `DT_SONAME`, when it has one.
    package var soname: String?
    /// `DT_NEEDED`, in order.
    package var needed: [String] = []
    /// `DT_RUNPATH` (or, without it, `DT_RPATH`), split at `:`, with `$ORIGIN` still in it.
    package var runPaths: [String] = []
    /// The dynamic symbols it defines (global, weak or unique).
    package var defined: Set<String> = []
    /// The dynamic symbols it needs that are not weak: without a definition, `dlopen` fails.
    package var required: Set<String> = []

    /// Why a file's linkage cannot be read.
    package enum Failure: Error, Equatable {
        /// Not a 64-bit little-endian ELF file.
        case unsupported
        /// A header, a table or a string lies outside the file or past the limits.
        case malformed
        /// It has no section headers (stripped of them): nothing can be said.
        case noSections
        /// The file cannot be read.
        case unreadable(SystemError)
    }

    /// The most bytes one table (symbols, strings, dynamic entries) may have.
    private static let tableLimit: UInt64 = 64 << 20

    /// Reads the linkage of the file open as `file`.
    package init(reading file: borrowing FileDescriptor) throws(Failure) {
        let size: UInt64
        do {
            size = UInt64(try file.status().st_size)
        } catch {
            throw .unreadable(error)
        }
        func read(_ offset: UInt64, _ count: UInt64) throws(Failure) -> [UInt8] {
            guard count <= Self.tableLimit, offset <= size, count <= size - offset else { throw .malformed }
            let bytes: [UInt8]
            do {
                bytes = try file.read(at: offset, count: Int(count))
            } catch {
                throw .unreadable(error)
            }
            guard bytes.count == Int(count) else { throw .malformed }
            return bytes
        }
        let header = try read(0, 64)
        guard header[0] == 0x7F, header[1] == 0x45, header[2] == 0x4C, header[3] == 0x46,
              header[4] == 2, header[5] == 1 else { throw .unsupported }
        let sectionOffset = header.word(at: 0x28)
        let sectionSize = UInt64(header.half(at: 0x3A))
        let sectionCount = UInt64(header.half(at: 0x3C))
        guard sectionOffset != 0, sectionCount != 0 else { throw .noSections }
        guard sectionSize >= 64 else { throw .malformed }
        let table = try read(sectionOffset, sectionSize * sectionCount)
        let sections = (0..<Int(sectionCount)).map { index in Section(table, at: index * Int(sectionSize)) }

        /// The string table of section `index`.
        func strings(_ index: UInt32) throws(Failure) -> [UInt8] {
            guard Int(index) < sections.count, sections[Int(index)].type == 3 else { throw .malformed }
            return try read(sections[Int(index)].offset, sections[Int(index)].size)
        }
        for section in sections {
            switch section.type {
            case 11:  // SHT_DYNSYM
                let names = try strings(section.link)
                let symbols = try read(section.offset, section.size)
                // The first entry is the null symbol.
                for start in stride(from: 24, to: symbols.count - 23, by: 24) {
                    let name = names.string(at: Int(symbols.half32(at: start)))
                    guard let name, !name.isEmpty else { continue }
                    let binding = symbols[start + 4] >> 4
                    let sectionIndex = symbols.half(at: start + 6)
                    if sectionIndex != 0 {
                        if binding == 1 || binding == 2 || binding == 10 { defined.insert(name) }
                    } else if binding == 1 {
                        required.insert(name)
                    }
                }
            case 6:  // SHT_DYNAMIC
                let names = try strings(section.link)
                let entries = try read(section.offset, section.size)
                var runPath: String?
                var rPath: String?
                for start in stride(from: 0, to: entries.count - 15, by: 16) {
                    let tag = entries.word(at: start)
                    if tag == 0 { break }
                    let value = entries.word(at: start + 8)
                    guard value < UInt64(names.count) else { continue }
                    switch tag {
                    case 1: names.string(at: Int(value)).map { needed.append($0) }
                    case 14: soname = names.string(at: Int(value))
                    case 15: rPath = names.string(at: Int(value))
                    case 29: runPath = names.string(at: Int(value))
                    default: break
                    }
                }
                runPaths = (runPath ?? rPath)?.split(separator: ":").map(String.init) ?? []
            default:
                break
            }
        }
    }

    /// One section header's fields used here.
    private struct Section {
        var type: UInt32
        var offset: UInt64
        var size: UInt64
        var link: UInt32

        init(_ table: [UInt8], at start: Int) {
            type = table.half32(at: start + 4)
            offset = table.word(at: start + 24)
            size = table.word(at: start + 32)
            link = table.half32(at: start + 40)
        }
    }
}

extension [UInt8] {
    /// The little-endian 16-bit value at `offset`.
    fileprivate func half(at offset: Int) -> UInt16 { UInt16(self[offset]) | UInt16(self[offset + 1]) << 8 }

    /// The little-endian 32-bit value at `offset`.
    fileprivate func half32(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { value, byte in value | UInt32(self[offset + byte]) << (8 * byte) }
    }

    /// The little-endian 64-bit value at `offset`.
    fileprivate func word(at offset: Int) -> UInt64 {
        (0..<8).reduce(0) { value, byte in value | UInt64(self[offset + byte]) << (8 * byte) }
    }

    /// The NUL-terminated string at `offset`; nil when it is outside or unterminated.
    fileprivate func string(at offset: Int) -> String? {
        guard offset >= 0, offset < count, let end = self[offset...].firstIndex(of: 0) else { return nil }
        return String(decoding: self[offset..<end], as: UTF8.self)
    }
}
