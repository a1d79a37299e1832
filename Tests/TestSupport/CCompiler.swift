import Foundation

/// Builds C sources into shared libraries for tests, as an extension author would.
public enum CCompiler {
    /// An error from the C compiler, with its output.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        /// A failure with the tool's output.
        public init(description: String) { self.description = description }
    }

    /// The C compiler: $CC, else cc.
    public static var compiler: String {
        ProcessInfo.processInfo.environment["CC"] ?? ProcessRunner.which("cc") ?? "/usr/bin/cc"
    }

    /// Compiles `source` (C99, warnings as errors) into `output` as a shared
    /// library, seeing only the header directory given.
    @discardableResult
    public static func sharedLibrary(_ source: String, output: String,
                                     includeDirectory: String = Locations.headerDirectory,
                                     extraFlags: [String] = []) throws -> String {
        let arguments = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-shared", "-fPIC",
                         "-I", includeDirectory] + extraFlags + [source, "-o", output]
        let result = try ProcessRunner.run(compiler, arguments)
        guard result.status == 0 else {
            throw Failure(description: "cc \(arguments.joined(separator: " ")) failed:\n\(result.standardError)")
        }
        return output
    }

    /// Compiles `sources` (C11, warnings as errors) into the program `output`,
    /// linked with `libraries` (names without "lib", as for -l).
    @discardableResult
    public static func executable(_ sources: [String], output: String, includeDirectories: [String] = [],
                                  libraries: [String] = []) throws -> String {
        let arguments = ["-std=c11", "-Wall", "-Wextra", "-Werror"] + includeDirectories.flatMap { ["-I", $0] }
            + sources + ["-o", output] + libraries.map { "-l" + $0 }
        let result = try ProcessRunner.run(compiler, arguments)
        guard result.status == 0 else {
            throw Failure(description: "cc \(arguments.joined(separator: " ")) failed:\n\(result.standardError)")
        }
        return output
    }

    /// Compiles a fixture from Tests/Fixtures/Extensions into `directory`,
    /// against the header in `includeDirectory` (the current one by default).
    /// Each (fixture, flags, header) is compiled once per test process and copied.
    @discardableResult
    public static func fixture(_ name: String, into directory: String, output: String? = nil,
                               extraFlags: [String] = [], includeDirectory: String = Locations.headerDirectory) throws
        -> String
    {
        let destination = directory + "/" + (output ?? "lib\(name).so")
        let built = try cache.library(for: ([name, includeDirectory] + extraFlags).joined(separator: " ")) { path in
            try sharedLibrary(Locations.repositoryFile("Tests/Fixtures/Extensions/\(name).c"), output: path,
                              includeDirectory: includeDirectory, extraFlags: extraFlags)
        }
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.copyItem(atPath: built, toPath: destination)
        return destination
    }

    private static let cache = BuildCache()
}

/// Libraries built once per test process, by key.
private final class BuildCache: @unchecked Sendable {
    private let lock = NSLock()
    private let directory = TemporaryDirectory("fixtures")
    private var built: [String: String] = [:]

    func library(for key: String, build: (String) throws -> String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let path = built[key] { return path }
        let path = directory.file("lib\(built.count).so")
        _ = try build(path)
        built[key] = path
        return path
    }
}
