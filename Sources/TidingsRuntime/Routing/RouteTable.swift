import TidingsProtocol
import TidingsRegistry

/// What a host knows of each (app, category) route: the category the app
/// registered under it, and where it leads once a delivery found that a
/// content extension serves it (routes no extension serves are not kept),
/// so that a delivery finds both with one lookup. A plain value; its owner
/// guards it.
package struct RouteTable {
    /// A registered category, in a class so that finding it copies one reference.
    package final class Registered: Sendable {
        /// The category.
        package let category: NotificationCategory

        /// Keeps `category`.
        init(_ category: NotificationCategory) {
            self.category = category
        }
    }

    /// What is known of one route.
    package struct Known {
        /// The category the app registered under this identifier, if any.
        package var registered: Registered?
        /// Where the route leads, once a delivery found it.
        package var target: RouteTarget?
    }

    /// Every route with a registered category or a known target.
    private var routes: [ExtensionIndex.Route: Known] = [:]

    /// A table that knows no route.
    package init() {}

    /// What is known of `route`, if anything.
    package subscript(route: ExtensionIndex.Route) -> Known? { routes[route] }

    /// The category `identifier` of `app`, if registered.
    package func category(_ identifier: String, of app: String) -> NotificationCategory? {
        routes[ExtensionIndex.Route(app: app, category: identifier)]?.registered?.category
    }

    /// The category registered for `delivered`'s app and category, boxed.
    package func registered(for delivered: DeliveredNotification) -> Registered? {
        routes[ExtensionIndex.Route(app: delivered.app, category: delivered.notification.content.categoryIdentifier)]?
            .registered
    }

    /// Every app's registered categories, by app, sorted by identifier.
    package func registeredCategories() -> [String: [NotificationCategory]] {
        var apps: [String: [NotificationCategory]] = [:]
        for (route, known) in routes {
            if let category = known.registered?.category { apps[route.app, default: []].append(category) }
        }
        return apps.mapValues { $0.sorted { $0.identifier < $1.identifier } }
    }

    /// Makes `categories` the categories of `app`, replacing those it had;
    /// of two with one identifier, the last counts. Where routes lead stays known.
    package mutating func register(_ categories: [NotificationCategory], for app: String) {
        var updated: [ExtensionIndex.Route: Known] = [:]
        for (route, known) in routes {
            if route.app == app {
                if let target = known.target { updated[route] = Known(target: target) }
            } else {
                updated[route] = known
            }
        }
        for category in categories {
            updated[ExtensionIndex.Route(app: app, category: category.identifier), default: Known()].registered =
                Registered(category)
        }
        routes = updated
    }

    /// Forgets where each route leads (the index changed), keeping the registered categories.
    package mutating func forgetTargets() {
        routes = routes.compactMapValues { known in
            known.registered.map { Known(registered: $0, target: nil) }
        }
    }

    /// Keeps `target` as where `route` leads, unless one was kept first
    /// (by a delivery on another thread); returns the one kept.
    mutating func keep(_ target: RouteTarget, for route: ExtensionIndex.Route) -> RouteTarget {
        if let kept = routes[route]?.target { return kept }
        routes[route, default: Known()].target = target
        return target
    }
}
