import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The app a command line's delivery or request goes to when it names none
/// (`--app`): the server routes nothing by category, so the command line
/// asks the server and chooses, as it always has — the one app that
/// registered the payload's category (`categories.list`), else the one
/// app whose content extension on the server's search path serves it
/// (`extensions.list`).
enum DefaultApp {
    /// The extension point of content extensions, as `extensions.list` names it.
    private static let contentPoint = "com.apple.usernotifications.content-extension"

    /// The app `payload` goes to on the server `client` talks to.
    /// - Throws: a usage error saying to name the app when none, or more than one, fits.
    static func find(for payload: JSON, client: ServerClient) throws(CommandFailure) -> String {
        let category = Payload.decode(payload, baseDirectory: nil).notification?.content.categoryIdentifier ?? ""
        guard !category.isEmpty else {
            throw .usage("Name the app with --app: the notification has no category to find it by.")
        }
        let registered = try call(.categoriesList, client)["apps"]?.arrayValue ?? []
        let registering = Set(registered.compactMap { entry -> String? in
            let categories = entry["categories"]?.arrayValue ?? []
            return categories.contains { $0["identifier"]?.stringValue == category } ? entry["app"]?.stringValue : nil
        })
        if registering.count == 1, let app = registering.first { return app }
        let bundles = try call(.extensionsList, client)["bundles"]?.arrayValue ?? []
        let serving = Set(bundles.compactMap { bundle -> String? in
            let categories = bundle["categories"]?.arrayValue ?? []
            guard bundle["point"]?.stringValue == contentPoint, categories.contains(where: { $0.stringValue == category })
            else { return nil }
            return bundle["app"]?.stringValue
        }).sorted()
        guard serving.count == 1 else {
            throw .usage(serving.isEmpty
                ? "Name the app with --app: no app registered category \"\(category)\" and no content extension serves it."
                : "Name the app with --app: category \"\(category)\" is served for \(serving.joined(separator: ", ")).")
        }
        return serving[0]
    }

    /// The answer of `method` (no parameters) on `client`; its failure as the command's.
    private static func call(_ method: MethodName, _ client: ServerClient) throws(CommandFailure) -> JSON {
        do throws(ServerClient.Failure) {
            return try client.call(method)
        } catch {
            throw SocketOption.failure(error, calling: method.rawValue)
        }
    }
}
