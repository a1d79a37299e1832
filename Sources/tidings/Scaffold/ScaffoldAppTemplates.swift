import TidingsBase
import TidingsRuntime

/// The text of each file `tidings new NAME --kind app` makes: a Swift
/// package whose executable asks authorization, adds a request and prints
/// what it did, over the app library (TidingsApp) of whichever Tidings was found.
enum ScaffoldAppTemplates {
    /// The app's files, by path relative to the project directory.
    static func files(_ project: Scaffold) -> [(path: String, text: String)] {
        [("Package.swift", package(project)), ("Sources/\(project.name)/main.swift", main(project)),
         ("README.md", readme(project)), (".gitignore", ".build/\nPackage.resolved\n")]
    }

    /// The `.package(…)` line and the identity that names the app library's package.
    static func dependency(_ project: Scaffold) -> (line: String, identity: String) {
        let package = project.source.app ?? ""
        if package.contains("://") {
            return (".package(url: \"\(package)\", from: \"\(HostFunctions.version)\")",
                    Path.deletingExtension(of: Path.lastComponent(of: package)).lowercased())
        }
        return (".package(path: \"\(package)\")", Path.lastComponent(of: package).lowercased())
    }

    /// Package.swift: one executable target on the product TidingsApp.
    static func package(_ project: Scaffold) -> String {
        let (line, identity) = dependency(project)
        return """
            // swift-tools-version: 6.0
            // \(project.name): an app of \(project.app) on TidingsApp, UNUserNotificationCenter's shape over `tidings serve`.
            import PackageDescription

            let package = Package(
                name: "\(project.name)",
                dependencies: [
                    // A package is known by its identity: the last part of its path or URL, in lower case.
                    \(line),
                ],
                targets: [
                    .executableTarget(name: "\(project.name)", dependencies: [.product(name: "TidingsApp", package: "\(identity)")]),
                ]
            )

            """
    }

    /// main.swift: authorization, one request, what is pending, each printed.
    static func main(_ project: Scaffold) -> String {
        """
        // \(project.name): asks to notify, schedules a reminder and says what is pending,
        // as an iOS app does with UNUserNotificationCenter. Made by `tidings new --kind app`.
        //   \(project.runCommand) [--socket PATH]
        import Glibc
        import TidingsApp

        // The host's socket: --socket PATH, else where `tidings serve` listens by default.
        let arguments = Array(CommandLine.arguments.dropFirst())
        let socket = arguments.firstIndex(of: "--socket").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        let center = UserNotificationCenter(app: "\(project.app)", socketPath: socket)
        do {
            // Provisional: answered at once; the person decides later, in the front end.
            let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge, .provisional])
            print("Authorization: \\(granted ? "allowed" : "not allowed").")

            var content = NotificationContent()
            content.title = "Hello from \(project.name)"
            content.body = "A reminder \(project.app) scheduled a minute ahead."
            let trigger = TimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
            try await center.add(NotificationRequest(identifier: "hello", content: content, trigger: trigger))
            print("Added the request hello: it fires in 60 seconds.")

            let pending = try await center.pendingNotificationRequests()
            print("Pending: \\(pending.map(\\.identifier).joined(separator: ", ")).")
            await center.disconnect()
        } catch {
            print("\(project.name): \\(error)")
            exit(1)
        }

        """
    }

    /// README.md: how to build and run it.
    static func readme(_ project: Scaffold) -> String {
        """
        # \(project.name)

        \(project.name) is an app of \(project.app) on TidingsApp, made by `tidings new --kind app`:
        it asks to notify, schedules a reminder a minute ahead and says what is pending.

        ```
        \(project.buildCommand)
        \(project.runCommand)
        ```

        It talks to `tidings serve` at its default socket (`--socket PATH` for another).
        `Package.swift` depends on the app library by \(project.source.app?.contains("://") == true ? "URL" : "path"): `\(dependency(project).line)`.

        """
    }
}
