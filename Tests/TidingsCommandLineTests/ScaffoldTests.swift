import Foundation
import TestSupport
import Testing

/// `tidings new`'s checks and `tidings validate` on a Swift project (the
/// flows themselves: ScaffoldFlowTests).
@Suite struct ScaffoldTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("scaffold")

    @Test func namesAndPlacesAreChecked() throws {
        #expect(try tidings.run("new", "9lives").status == 64)
        #expect(try tidings.run("new", "Two Words").status == 64)
        #expect(try tidings.run("new", "Digest", "--kind", "widget").status == 64)
        #expect(try tidings.run("new", "Digest", "--kind", "service", "--categories", "a").status == 64)
        #expect(try tidings.run("new", "Taken", "--into", scratch.path).status == 0)
        let again = try tidings.run("new", "Taken", "--into", scratch.path)
        #expect(again.status == 73 && again.standardError.contains("exists already"))
    }

    @Test func validateOnAnUnbuiltSwiftPackageSaysToBuildIt() throws {
        #expect(try tidings.run("new", "Unbuilt", "--into", scratch.path).status == 0)
        let validated = try tidings.run(["validate", "."], environment: [:], directory: scratch.file("Unbuilt"))
        #expect(validated.status == 66)
        #expect(validated.standardError.contains("neither .build/debug/libUnbuilt.so nor .build/release/libUnbuilt.so is built"))
        #expect(validated.standardError.contains("run swift build"))
    }
}
