import TestSupport
import Testing
import TidingsABI
import TidingsBase
import TidingsLoader

/// A host table whose functions are all absent: the loader only passes it on.
/// Allocated once and never freed, as a real host table lives for the process.
private var hostTable: UnsafePointer<tidings_host> { HostTable.shared.pointer }

private struct HostTable: @unchecked Sendable {
    static let shared = HostTable()
    let pointer: UnsafePointer<tidings_host>

    init() {
        let table = UnsafeMutablePointer<tidings_host>.allocate(capacity: 1)
        table.initialize(to: tidings_host())
        table.pointee.struct_size = UInt32(MemoryLayout<tidings_host>.size)
        table.pointee.abi_version = TIDINGS_ABI_VERSION
        pointer = UnsafePointer(table)
    }
}

@Suite struct ExtensionLoaderTests {
    let directory = TemporaryDirectory("loader")

    @Test(arguments: BrokenLibrary.allCases)
    func eachBrokenLibraryHasItsOwnCode(_ broken: BrokenLibrary) throws {
        let path = try broken.make(in: directory.path)
        let error = #expect(throws: Diagnostic.self) { try ExtensionLoader.load(path, bundle: directory.path, host: hostTable) }
        #expect(error?.code.rawValue == broken.expectedCode)
        #expect(error?.location.file == path)
    }

    @Test func theCodesAreDistinctPerFailureClass() {
        let codes = BrokenLibrary.allCases.filter { $0 != .zeroABI }.map(\.expectedCode)
        #expect(Set(codes).count == codes.count)
    }

    @Test func unresolvedSymbolIsNamed() throws {
        let path = try BrokenLibrary.unresolvedSymbol.make(in: directory.path)
        let error = #expect(throws: Diagnostic.self) { try ExtensionLoader.load(path, bundle: directory.path, host: hostTable) }
        #expect(error?.message.contains("tidings_test_symbol_nobody_defines") == true)
    }

    @Test func wrongArchitectureNamesBothMachines() throws {
        let path = try BrokenLibrary.wrongArchitecture.make(in: directory.path)
        let error = #expect(throws: Diagnostic.self) { try ExtensionLoader.inspect(path) }
        #expect(error?.message.contains("x86-64") == true)
        #expect(error?.message.contains("AArch64") == true)
    }

    @Test func inspectionRunsNoCode() throws {
        // A library that would fail only when loaded passes inspection: it is a valid ELF shared object.
        let path = try BrokenLibrary.unresolvedSymbol.make(in: directory.path)
        try ExtensionLoader.inspect(path)
    }

    @Test func validLibraryLoadsWithItsFunctions() throws {
        let path = try CCompiler.fixture("Broken", into: directory.path, output: "libvalid.so")
        let loaded = try ExtensionLoader.load(path, bundle: directory.path, host: hostTable)
        #expect(loaded.abiVersion == TIDINGS_ABI_VERSION)
        #expect(loaded.descriptorSize == MemoryLayout<tidings_extension>.size)
        #expect(loaded.didReceiveResponse != nil)
        #expect(loaded.mediaPlay == nil)
    }

    @Test func absentResponseHandlerIsNil() throws {
        let path = try CCompiler.fixture("Broken", into: directory.path, output: "libnohandler.so",
                                         extraFlags: ["-DNO_RESPONSE_HANDLER"])
        #expect(try ExtensionLoader.load(path, bundle: directory.path, host: hostTable).didReceiveResponse == nil)
    }

    @Test func functionsBeyondTheGivenSizeAreIgnored() throws {
        // The descriptor holds a response handler but says it ends before it.
        let path = try CCompiler.fixture("Broken", into: directory.path, output: "libminimal.so",
                                         extraFlags: ["-DMINIMAL_SIZE"])
        let loaded = try ExtensionLoader.load(path, bundle: directory.path, host: hostTable)
        #expect(loaded.descriptorSize == tidings_extension.introducedSize)
        #expect(loaded.didReceiveResponse == nil)
    }

    @Test func anExtensionsInterfaceIsFoundByIdAndKept() throws {
        let path = try CCompiler.fixture("Exerciser", into: directory.path, extraFlags: ["-pthread"])
        let loaded = try ExtensionLoader.load(path, bundle: directory.path, host: hostTable)
        let interface = try #require(loaded.interface("com.example.exerciser/1", as: ExerciserInterface.self))
        #expect(interface.answer == 42)
        #expect(interface.twice?(21) == 42)
        // Asked once, kept: the same interface every time.
        #expect(loaded.interface("com.example.exerciser/1") == loaded.interface("com.example.exerciser/1"))
        // An id it does not offer, or not in its form, is nil.
        #expect(loaded.interface("com.example.nobody/1") == nil)
        #expect(loaded.interface("com.example.exerciser/2") == nil)
        #expect(loaded.interface("") == nil)
    }

    @Test func anExtensionOfVersion2OffersNoInterfaces() throws {
        let path = try CCompiler.fixture("Exerciser", into: directory.path, output: "libexerciser2.so",
                                         extraFlags: ["-pthread"],
                                         includeDirectory: Locations.repositoryFile("Tests/ABI/v2"))
        let loaded = try ExtensionLoader.load(path, bundle: directory.path, host: hostTable)
        #expect(loaded.abiVersion == 2)
        #expect(loaded.interface("com.example.exerciser/1") == nil)
    }

    @Test func elfIdentityReadsTheRunningExecutable() throws {
        let host = try #require(ELFIdentity.host)
        #expect(host.wordSize == 2)
        #expect(host.byteOrder == 1)
        #expect(ELFIdentity(Array("not an elf file at all".utf8)) == nil)
    }
}

/// The interface Exerciser.c offers as "com.example.exerciser/1".
private struct ExerciserInterface: SizedStruct {
    var struct_size: UInt32 = 0
    var answer: UInt32 = 0
    var twice: (@convention(c) (Int32) -> Int32)?

    static let introducedSize = 16
    static var defaults: Self { Self() }
}
