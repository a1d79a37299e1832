import Foundation

/// Builds C sources into shared libraries for tests, as an extension author would.
public enum CCompiler {
    /// An error from the C compiler, with its output.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
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

    /// Compiles a fixture from Tests/Fixtures/Extensions.
    @discardableResult
    public static func fixture(_ name: String, into directory: String, output: String? = nil,
                               extraFlags: [String] = []) throws -> String {
        try sharedLibrary(Locations.repositoryFile("Tests/Fixtures/Extensions/\(name).c"),
                          output: directory + "/" + (output ?? "lib\(name).so"), extraFlags: extraFlags)
    }
}
