import Foundation

/// The ways an extension library can be broken, each built for real from
/// Tests/Fixtures/Extensions/Broken.c or made from a real library.
public enum BrokenLibrary: String, CaseIterable, Sendable {
    case missing
    case notELF = "not-elf"
    case wrongArchitecture = "wrong-architecture"
    case notShared = "not-shared"
    case unresolvedSymbol = "unresolved-symbol"
    case noEntry = "no-entry"
    case nullDescriptor = "null-descriptor"
    case undersizedDescriptor = "undersized-descriptor"
    case futureABI = "future-abi"
    case zeroABI = "zero-abi"
    case incompleteDescriptor = "incomplete-descriptor"

    /// The diagnostic code the loader must give.
    public var expectedCode: String {
        switch self {
        case .missing: "load.library-missing"
        case .notELF: "load.not-elf"
        case .wrongArchitecture: "load.wrong-architecture"
        case .notShared: "load.not-shared-library"
        case .unresolvedSymbol: "load.unresolved-symbol"
        case .noEntry: "load.entry-missing"
        case .nullDescriptor: "load.descriptor-null"
        case .undersizedDescriptor: "load.descriptor-undersized"
        case .futureABI, .zeroABI: "load.abi-incompatible"
        case .incompleteDescriptor: "load.descriptor-incomplete"
        }
    }

    /// Makes the broken library at `directory/lib<name>.so` (or leaves it
    /// absent, for `.missing`) and returns its path.
    @discardableResult
    public func make(in directory: String) throws -> String {
        let output = "\(directory)/lib\(rawValue).so"
        switch self {
        case .missing:
            break
        case .notELF:
            try "This is a text file, not a shared library.\n".write(toFile: output, atomically: true, encoding: .utf8)
        case .wrongArchitecture:
            // A real library with its machine changed to AArch64 (183) or, on AArch64, x86-64 (62).
            try CCompiler.fixture("Broken", into: directory, output: "lib\(rawValue).so")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: output))
            let machine: UInt16 = bytes[18] == 183 ? 62 : 183
            bytes[18] = UInt8(machine & 0xFF)
            bytes[19] = UInt8(machine >> 8)
            try bytes.write(to: URL(fileURLWithPath: output))
        case .notShared:
            // An object file: ELF, right machine, but not a shared library.
            let result = try ProcessRunner.run(CCompiler.compiler, [
                "-c", "-fPIC", "-I", Locations.headerDirectory,
                Locations.repositoryFile("Tests/Fixtures/Extensions/Broken.c"), "-o", output,
            ])
            guard result.status == 0 else { throw CCompiler.Failure(description: result.standardError) }
        default:
            try CCompiler.fixture("Broken", into: directory, output: "lib\(rawValue).so", extraFlags: [define])
        }
        return output
    }

    private var define: String {
        switch self {
        case .unresolvedSymbol: "-DUNRESOLVED"
        case .noEntry: "-DNO_ENTRY"
        case .nullDescriptor: "-DNULL_DESCRIPTOR"
        case .undersizedDescriptor: "-DUNDERSIZED"
        case .futureABI: "-DABI_VERSION=99"
        case .zeroABI: "-DABI_VERSION=0"
        case .incompleteDescriptor: "-DINCOMPLETE"
        default: ""
        }
    }
}
