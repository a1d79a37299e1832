import Glibc
import Testing
@testable import TidingsBase

@Suite("Directory listing")
struct DirectoryListingTests {
    let scratch = ScratchDirectory()

    /// Thousands of short names, which fill `readdir`'s buffer to within a
    /// few bytes of its end, and names of every length a file system allows:
    /// each is read whole, and nothing beyond its own entry is read (a
    /// listing used to copy all 256 bytes of `d_name` from entries shorter
    /// than that, past the end of the buffer; AddressSanitizer caught it in
    /// the server's listing of /tmp, see the README).
    @Test func everyNameIsReadWholeAndNothingBeyondItsEntry() throws {
        let names = Set((0..<4_000).map { "f\($0)" } + (1...255).map { String(repeating: "n", count: $0) })
        for name in names {
            let descriptor = open(scratch.file(name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0, "cannot create \(name)")
            close(descriptor)
        }
        let entries = try FileSystem.entries(of: scratch.path)
        #expect(entries.count == names.count)
        #expect(Set(entries.map(\.name)) == names)
        #expect(entries.allSatisfy { $0.kind == .regular })
    }
}
