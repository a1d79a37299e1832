import TestSupport
import TidingsBase

/// Requests to a server serving the Ledger fixture, as lines: each id tells
/// what it asks ("deliver n1", "respond n1").
enum LedgerRequests {
    /// A request as one line.
    static func line(_ id: String, _ method: String, _ params: JSON) -> String {
        JSON.object([("jsonrpc", .string("2.0")), ("id", .string(id)), ("method", .string(method)), ("params", params)])
            .serialized()
    }

    /// A request of `method` with `params`, as a line (its id is the method's name).
    static func call(_ method: String, _ params: [(String, JSON)] = []) -> String {
        line(method, method, .object(params))
    }

    /// Registers the Ledger's category, with action "close".
    static let register = line("register", "categories.register", .object([
        ("app", .string(LedgerFixture.app)),
        ("categories", .array([.object([("identifier", .string(LedgerFixture.category)),
                                        ("actions", .array([.object([("identifier", .string("close")),
                                                                     ("title", .string("Close"))])]))])])),
    ]))

    /// A delivery of notification `identifier` of `thread` to the Ledger, with `userInfo`.
    static func deliver(_ identifier: String, userInfo: [(String, JSON)] = [], thread: String = "") -> String {
        line("deliver \(identifier)", "notifications.deliver", .object([
            ("app", .string(LedgerFixture.app)), ("open", .bool(true)),
            ("payload", .object([("identifier", .string(identifier)), ("content", .object([
                ("title", .string("T")), ("categoryIdentifier", .string(LedgerFixture.category)),
                ("threadIdentifier", .string(thread)), ("userInfo", .object(userInfo)),
            ]))])),
        ]))
    }

    /// The user closing notification `identifier`.
    static func respond(_ identifier: String) -> String {
        line("respond \(identifier)", "notifications.respond",
             .object([("identifier", .string(identifier)), ("action", .string("close"))]))
    }

    /// The text of label `identifier` in a presentation's view.
    static func label(_ identifier: String, in presentation: JSON?) -> String? {
        presentation?["view"]?["children"]?.arrayValue?.first { $0["id"]?.stringValue == identifier }?["text"]?.stringValue
    }
}
