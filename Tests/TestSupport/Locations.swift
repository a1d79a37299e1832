import Foundation

/// Where the tests find the repository and what `swift build` produced.
public enum Locations {
    /// The repository's root directory.
    public static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The build products directory (.build/…/debug): the test bundle lives
    /// there beside the sample libraries and the `tidings` executable.
    public static let products: String = {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // swift test runs …/debug/TidingsPackageTests.xctest (a file on Linux).
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("tidings").path) {
                return directory.path
            }
            directory.deleteLastPathComponent()
        }
        return executable.deletingLastPathComponent().path
    }()

    /// The directory holding tidings.h.
    public static let headerDirectory = repository + "/Sources/TidingsABI/include"

    /// A file under the repository.
    public static func repositoryFile(_ relative: String) -> String {
        repository + "/" + relative
    }

    /// A built product, such as "libEventInvite.so" or "tidings".
    public static func product(_ name: String) -> String {
        products + "/" + name
    }
}
