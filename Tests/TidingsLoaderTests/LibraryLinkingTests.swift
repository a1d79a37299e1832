import Foundation
import TestSupport
import Testing
import TidingsBase
import TidingsLoader

/// Judging a library from its files: the entry symbol, the libraries and
/// symbols it needs; and reading a damaged file without harm.
@Suite struct LibraryLinkingTests {
    let directory = TemporaryDirectory("linking")

    @Test func aWorkingLibraryHasNoProblems() throws {
        let path = try CCompiler.fixture("Broken", into: directory.path)
        #expect(LibraryLinking.problems(of: path).isEmpty)
    }

    @Test(arguments: [("-DNO_ENTRY", "load.entry-missing"), ("-DUNRESOLVED", "load.unresolved-symbol")])
    func eachBreakageIsNamedWithoutLoading(_ flag: String, _ code: String) throws {
        let path = try CCompiler.fixture("Broken", into: directory.path, output: "lib\(code).so", extraFlags: [flag])
        let problems = LibraryLinking.problems(of: path)
        #expect(problems.map(\.code.rawValue) == [code])
        if code == "load.unresolved-symbol" { #expect(problems[0].message.contains("tidings_test_symbol_nobody_defines")) }
    }

    /// A missing entry names the cause: the tidings_ symbol the library exports instead, with the fix, or the usual causes.
    @Test func aMissingEntryListsTheExportedTidingsSymbols() throws {
        let misspelt = try CCompiler.fixture("Broken", into: directory.path, output: "libMisspelt.so",
                                             extraFlags: ["-Dtidings_extension_entry=tidings_extention_entry"])
        let problem = try #require(LibraryLinking.problems(of: misspelt).first)
        #expect(problem.code.rawValue == "load.entry-missing")
        #expect(problem.message.hasSuffix("it exports tidings_extention_entry. Did you mean tidings_extension_entry? Rename the function tidings_extension_entry."))
        // Exported tidings_ symbols far from the entry are listed; none at all names the usual causes.
        #expect(LibraryLinking.entryMissing("libX.so", exported: ["tidings_helper", "other"])
            .hasSuffix("its exported tidings_ symbols are tidings_helper. Export a function named tidings_extension_entry."))
        let hidden = try #require(LibraryLinking.problems(of: CCompiler.fixture("Broken", into: directory.path, output: "libHidden.so",
                                                                              extraFlags: ["-DNO_ENTRY"])).first)
        #expect(hidden.message.contains("exports no tidings_ symbol: is the entry misspelt, declared static, or hidden"))
    }

    @Test func theLinkageListsWhatTheLinkerReads() throws {
        let path = try CCompiler.fixture("Broken", into: directory.path, output: "libLinked.so",
                                         extraFlags: ["-DUNRESOLVED", "-Wl,-soname,libLinked.so.1", "-Wl,-rpath,$ORIGIN/lib",
                                                     "-Wl,--no-as-needed", "-lm"])
        let file = try FileDescriptor(opening: path, as: .regularFile)
        let linkage = try ELFLinkage(reading: file)
        #expect(linkage.soname == "libLinked.so.1")
        #expect(linkage.runPaths == ["$ORIGIN/lib"])
        #expect(linkage.needed.contains("libm.so.6"))
        #expect(linkage.defined.contains("tidings_extension_entry"))
        #expect(linkage.required.contains("tidings_test_symbol_nobody_defines"))
        #expect(!linkage.defined.contains("create"))  // static: not exported
    }

    /// A library cut short or with its tables' offsets overwritten is refused or judged, never a crash.
    @Test func aDamagedLibraryIsReadWithoutHarm() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try CCompiler.fixture("Broken", into: directory.path))))
        var variants: [[UInt8]] = [64, 65, 200, original.count / 2, original.count - 1].map { Array(original.prefix($0)) }
        // e_shoff, e_shentsize, e_shnum and e_shstrndx overwritten; then every section header's offset and size.
        for offset in [0x28, 0x3A, 0x3C] {
            var damaged = original
            for byte in 0..<2 { damaged[offset + byte] = 0xFF }
            variants.append(damaged)
        }
        let sections = original[0x28..<0x30].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        for field in [24, 32, 40] {
            var damaged = original
            var header = sections
            while header + 64 <= damaged.count {
                for byte in 0..<4 { damaged[header + field + byte] = 0xEE }
                header += 64
            }
            variants.append(damaged)
        }
        for (number, bytes) in variants.enumerated() {
            let path = directory.path + "/damaged-\(number).so"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let problems = LibraryLinking.problems(of: path)
            #expect(problems.allSatisfy { $0.severity == .error })
        }
    }
}
