import Testing
import TidingsRegistry

@Suite struct SearchPathTests {
    // MARK: TIDINGS_EXTENSIONS_PATH

    @Test func environmentListReplacesTheXDGDirectories() {
        let path = SearchPath.resolve(environment: [
            "TIDINGS_EXTENSIONS_PATH": "/opt/extensions:/srv/extensions",
            "XDG_DATA_HOME": "/data", "HOME": "/home/user", "XDG_DATA_DIRS": "/usr/share",
        ])
        #expect(path == SearchPath(directories: ["/opt/extensions", "/srv/extensions"], origin: .environment))
    }

    @Test func environmentListDropsEmptyEntriesAndRepeats() {
        let path = SearchPath.resolve(environment: ["TIDINGS_EXTENSIONS_PATH": ":/a::/b:/a:relative:/b:"])
        #expect(path.directories == ["/a", "/b", "relative"])
        #expect(path.origin == .environment)
    }

    @Test func emptyEnvironmentListMeansTheDefault() {
        let path = SearchPath.resolve(environment: ["TIDINGS_EXTENSIONS_PATH": "", "HOME": "/home/user"])
        #expect(path.origin == .xdg)
        #expect(path.directories.first == "/home/user/.local/share/tidings/extensions")
    }

    // MARK: XDG

    @Test func xdgDataHomeComesBeforeTheDataDirectories() {
        let path = SearchPath.resolve(environment: [
            "XDG_DATA_HOME": "/data", "HOME": "/home/user", "XDG_DATA_DIRS": "/opt/share:/usr/share",
        ])
        #expect(path == SearchPath(directories: [
            "/data/tidings/extensions", "/opt/share/tidings/extensions", "/usr/share/tidings/extensions",
        ], origin: .xdg))
    }

    @Test func homeIsTheFallbackForDataHomeAndTheSystemDirectoriesTheDefault() {
        let path = SearchPath.resolve(environment: ["HOME": "/home/user"])
        #expect(path == SearchPath(directories: [
            "/home/user/.local/share/tidings/extensions",
            "/usr/local/share/tidings/extensions",
            "/usr/share/tidings/extensions",
        ], origin: .xdg))
    }

    @Test(arguments: ["", "relative/data", "./data", "~/data"])
    func dataHomeThatIsEmptyOrRelativeIsIgnored(dataHome: String) {
        let path = SearchPath.resolve(environment: ["XDG_DATA_HOME": dataHome, "HOME": "/home/user"])
        #expect(path.directories.first == "/home/user/.local/share/tidings/extensions")
        #expect(path.directories.count == 3)
    }

    @Test func withoutHomeOnlyTheSystemDirectoriesRemain() {
        #expect(SearchPath.resolve(environment: [:]).directories == [
            "/usr/local/share/tidings/extensions", "/usr/share/tidings/extensions",
        ])
        #expect(SearchPath.resolve(environment: ["HOME": ""]).directories.count == 2)
    }

    @Test func emptyDataDirectoriesMeanTheDefault() {
        let path = SearchPath.resolve(environment: ["XDG_DATA_DIRS": ""])
        #expect(path.directories == ["/usr/local/share/tidings/extensions", "/usr/share/tidings/extensions"])
    }

    @Test func relativeAndEmptyDataDirectoriesAreIgnored() {
        let path = SearchPath.resolve(environment: ["XDG_DATA_DIRS": "share:/opt/share::./local:/usr/share/"])
        #expect(path.directories == ["/opt/share/tidings/extensions", "/usr/share/tidings/extensions"])
    }

    @Test func repeatedXDGDirectoriesAreListedOnce() {
        let path = SearchPath.resolve(environment: [
            "XDG_DATA_HOME": "/usr/share", "XDG_DATA_DIRS": "/usr/share:/opt/share:/usr/share",
        ])
        #expect(path.directories == ["/usr/share/tidings/extensions", "/opt/share/tidings/extensions"])
    }

    // MARK: --extensions

    @Test func optionOverridesEverything() {
        let path = SearchPath.resolve(environment: [
            "TIDINGS_EXTENSIONS_PATH": "/from/environment", "XDG_DATA_HOME": "/data", "HOME": "/home/user",
        ], override: ["/from/option", "relative/option"])
        #expect(path == SearchPath(directories: ["/from/option", "relative/option"], origin: .option))
    }

    /// `--extensions DIR --extensions DIR` once listed every bundle of DIR
    /// twice, each copy "shadowed" by itself.
    @Test func optionGivenTwiceListsTheDirectoryOnce() throws {
        let path = SearchPath.resolve(environment: [:], override: ["/a", "/b", "/a"])
        #expect(path.directories == ["/a", "/b"])

        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.content("Invite", in: directory, identifier: "com.example.events.invite", categories: ["INVITE"])
        let index = Discovery.scan(SearchPath.resolve(environment: [:], override: [directory, directory]))
        #expect(index.bundles.map(\.name) == ["Invite.appex"])
        #expect(index.bundles.allSatisfy { $0.diagnostics.isEmpty })
    }

    @Test func noOptionMeansTheEnvironment() {
        let path = SearchPath.resolve(environment: ["TIDINGS_EXTENSIONS_PATH": "/from/environment"], override: [])
        #expect(path.origin == .environment)
    }
}
