import Foundation
import TestSupport
import Testing

/// What the guide tells a reader to type or to expect, checked against
/// what the project does: the C guide's compile line against an installed
/// prefix, and the parsers page against the formats the sources read.
@Suite struct DocumentationTruthTests {
    let scratch = TemporaryDirectory("doc-truth")

    /// The text of `Docs/NAME`.
    static func page(_ name: String) throws -> String {
        try String(contentsOfFile: Locations.repositoryFile("Docs/" + name), encoding: .utf8)
    }

    /// The fenced blocks of `page` whose info string is `language`, in order.
    static func blocks(_ language: String, in page: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```" + language {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func theCGuidesCompileLineBuildsAgainstAnInstalledPrefix() throws {
        let guide = try Self.page("extensions.md")
        let source = try #require(Self.blocks("c", in: guide).first { $0.contains("tidings_extension_entry") })
        let line = try #require(Self.blocks("sh", in: guide).flatMap { $0.split(separator: "\n") }
            .first { $0.hasPrefix("cc ") && $0.contains("hello.c") })
        let prefix = scratch.file("prefix")
        let install = try ProcessRunner.run("/bin/bash", [Locations.repositoryFile("Scripts/install.sh"), "--prefix", prefix,
                                                          "--binary", Locations.product("tidings")])
        try #require(install.status == 0, "\(install.standardError)")
        let project = scratch.file("hello")
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        try source.write(toFile: project + "/hello.c", atomically: true, encoding: .utf8)
        // No header in the compiler's own directories: only what the line names finds it.
        let built = try ProcessRunner.run("/bin/bash", ["-c", String(line)],
                                          environment: ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"], directory: project)
        #expect(built.status == 0, "\(line)\n\(built.standardError)")
        #expect(FileManager.default.fileExists(atPath: project + "/libHello.so"))
    }

    /// The files the parsers page's table links (a folder: its Swift files).
    static func filesOfTheParsersTable() throws -> [String] {
        let page = try Self.page("contributing/parsers.md")
        let start = try #require(page.range(of: "| what | files"))
        let table = page[start.lowerBound...].components(separatedBy: "\n\n")[0]
        var files: [String] = []
        for link in table.components(separatedBy: "](../../").dropFirst() {
            let relative = String(link.prefix { $0 != ")" })
            let path = Locations.repositoryFile(relative)
            var isDirectory: ObjCBool = false
            try #require(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), "\(relative) is not there")
            if isDirectory.boolValue {
                files += try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".swift") }
                    .map { relative + "/" + $0 }
            } else {
                files.append(relative)
            }
        }
        return files
    }

    @Test func theParsersPageListsEveryFormatReaderAndCountsItsLines() throws {
        let listed = Set(try Self.filesOfTheParsersTable())
        // Every file that reads or writes a format by hand, by the names the sources give them.
        let formatFile = try NSRegularExpression(pattern:
            #"(JSONParser|JSONWriter|PropertyList(Reader|Writer|Scalars)|Base64|ISO8601|ValidUTF8|StringsTable|TZifReader|POSIXTimeZoneRule|RecordFraming|CRC32|Byte(Reader|Writer)|WorkerMessage\w*Encoding|ELF\w+|ParsedArguments|Signatures|FrameHeader|InterfaceDecoding|LocalizedFormat|/Payload)\.swift$"#)
        let sources = Locations.repositoryFile("Sources")
        let all = try #require(FileManager.default.subpaths(atPath: sources)).map { "Sources/" + $0 }
        let readers = all.filter { formatFile.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
        #expect(readers.count > 20)
        for reader in readers { #expect(listed.contains(reader), "\(reader) reads a format and is not on the parsers page") }
        // The hand-written SHA-256 is gone: digests come from libcrypto.
        #expect(!all.contains { $0.hasPrefix("Sources/TidingsBase/Hashing/") })

        let counted = try listed.reduce(0) { total, file in
            total + (try String(contentsOfFile: Locations.repositoryFile(file), encoding: .utf8))
                .split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        let page = try Self.page("contributing/parsers.md")
        let stated = try #require(page.firstMatch(of: /about ([0-9,]+)\s+lines/).map {
            Int($0.1.replacingOccurrences(of: ",", with: ""))
        } ?? nil)
        #expect(abs(stated - counted) * 10 <= counted, "the page says about \(stated) lines; wc -l counts \(counted)")
    }
}
