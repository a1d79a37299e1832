import TidingsBase
import TidingsRegistry

/// Finds the content extension an (app, category) route leads to in an
/// index, and when none serves it, says why in a note: no category, a near
/// miss in spelling, the category served for another app, the categories
/// the app's extensions do declare, or the bundles rejected for errors.
package struct RouteFinder {
    /// The index routes are found in.
    package let index: ExtensionIndex

    /// A finder for routes in `index`.
    package init(index: ExtensionIndex) {
        self.index = index
    }

    /// The content extension `route` leads to, or nil with a note in
    /// `diagnostics` saying why none serves it.
    package func target(for route: ExtensionIndex.Route, diagnostics: inout [Diagnostic]) -> RouteTarget? {
        let (app, category) = (route.app, route.category)
        guard !category.isEmpty else {
            diagnostics.append(.note(.routeNoCategory, "The notification has no category, so no content extension serves it."))
            return nil
        }
        if let bundle = index.contentExtension(forApp: app, category: category), let target = RouteTarget(bundle: bundle) {
            return target
        }
        var message = "No content extension of app \(app) declares category \"\(category)\""
        let declared = index.categories(ofApp: app)
        let elsewhere = index.apps(servingCategory: category)
        if let near = Suggestion.closest(to: category, among: declared) {
            message += "; did you mean \"\(near)\"? (Categories match exactly.)"
        } else if !elsewhere.isEmpty {
            message += "; it is served for \(elsewhere.joined(separator: ", ")), and only an app's own extensions see its notifications."
        } else if !declared.isEmpty {
            message += "; its extensions declare \(declared.map { "\"\($0)\"" }.joined(separator: ", "))."
        } else {
            message += "; the app has no content extension on the search path."
            // A bundle rejected for its errors may be the one meant: name each with its first error.
            let rejected = index.bundles.filter { !$0.isUsable }.map { bundle in
                bundle.name + (bundle.diagnostics.first { $0.severity == .error }.map { " (\($0.message))" } ?? "")
            }
            if !rejected.isEmpty { message += " Rejected there for their errors: " + rejected.joined(separator: "; ") + "." }
        }
        diagnostics.append(.note(.routeNoExtension, message))
        return nil
    }
}

extension Diagnostic.Code {
    /// The notification has no category.
    package static let routeNoCategory = Self("route.no-category")
    /// No content extension of the app declares the notification's category.
    package static let routeNoExtension = Self("route.no-extension")
}
