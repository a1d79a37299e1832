import Foundation
import TestSupport
import Testing

/// tidings.h is a contract for C and C++ compilers, not only for Swift.
@Suite struct HeaderTests {
    let directory = TemporaryDirectory("abi")
    static let strict = ["-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only"]

    /// Each compiler present on the machine, with the language standards to check.
    static let configurations: [(compiler: String, standard: String, language: String)] = {
        var found: [(String, String, String)] = []
        for compiler in ["gcc", "clang"] where ProcessRunner.which(compiler) != nil {
            for standard in ["c99", "c11"] { found.append((compiler, standard, "c")) }
        }
        for compiler in ["g++", "clang++"] where ProcessRunner.which(compiler) != nil {
            for standard in ["c++11", "c++17"] { found.append((compiler, standard, "c++")) }
        }
        return found
    }()

    @Test func atLeastOneCAndOneCPlusPlusCompilerIsChecked() {
        #expect(Self.configurations.contains { $0.language == "c" })
        #expect(Self.configurations.contains { $0.language == "c++" })
    }

    @Test(arguments: configurations.map { "\($0.compiler) -std=\($0.standard)" })
    func headerCompilesWithoutWarnings(_ configuration: String) throws {
        let (compiler, standard, language) = Self.configurations.first { "\($0.compiler) -std=\($0.standard)" == configuration }!
        let result = try ProcessRunner.run(ProcessRunner.which(compiler)!, [
            "-x", language, "-std=\(standard)",
        ] + Self.strict + [
            "-I", Locations.headerDirectory, Locations.repositoryFile("Tests/Fixtures/ABI/header_check.c"),
        ])
        #expect(result.status == 0, "\(configuration): \(result.standardError)")
    }

    /// Every frozen version, with the number of layout lines its header gives at least.
    static let frozenVersions = [("v1", 70), ("v2", 95), ("v3", 115)]

    @Test(arguments: frozenVersions)
    func frozenLayoutIsKeptByTheCurrentHeader(version: String, lines: Int) throws {
        let frozen = try layout(including: Locations.repositoryFile("Tests/ABI/\(version)"))
        let current = Set(try layout(including: Locations.headerDirectory))
        #expect(frozen.count > lines)
        let changed = frozen.filter { !current.contains($0) }
        #expect(changed.isEmpty, "\(version) fields moved or changed: \(changed)")
    }

    /// The field offsets, sizes and constants a header gives, one line each.
    private func layout(including headers: String) throws -> [String] {
        let program = directory.file("layout-\(abs(headers.hashValue))")
        let build = try ProcessRunner.run(CCompiler.compiler, [
            "-std=c99", "-Wall", "-Werror", "-I", headers,
            Locations.repositoryFile("Tests/Fixtures/ABI/layout_dump.c"), "-o", program,
        ])
        try #require(build.status == 0, Comment(rawValue: build.standardError))
        let run = try ProcessRunner.run(program, [])
        try #require(run.status == 0)
        return run.standardOutput.split(separator: "\n").map(String.init)
    }
}
