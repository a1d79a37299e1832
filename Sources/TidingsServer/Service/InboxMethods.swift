import TidingsBase
import TidingsProtocol

/// `inbox.*`: what apps received — responses, background notifications —
/// kept until their front ends take it.
extension HostService {
    /// The family's methods.
    static let inboxMethods: [Method] = [
        Method(ProtocolMethod(
            .inboxList,
            summary: "What apps received and their front ends have not taken (responses, background notifications), of one app or of all, in the order received, a page at a time: give back the answer's next as after.",
            parameters: [
                ProtocolField("app", .name, "Only this app's entries; every app's when absent."),
                ProtocolField("after", .integer(atLeast: 0), "An entry id: the page begins after it (the `next` of the previous page); from the oldest when absent."),
                ProtocolField("limit", .integer(1...Int64(ListCursor.maximumLimit)), "The most entries on the page, 1 – 1,000; 100 by default."),
            ],
            result: "`entries`: inbox entries (as `response.forwarded` and `notification.background` carry them, without `replayed`), oldest first; `next`: the id to pass as `after` for the next page, or `null` after the last.",
            returns: .object([
                ProtocolField("entries", .array(.named("InboxEntry")), required: true, "The page, oldest first."),
                ProtocolField("next", .nullable(.integer(atLeast: 1)), required: true, "The id to pass as `after` for the next page, or `null` after the last."),
            ]),
            errors: [-32602]),
               scope: RequestScope(reading: [.inbox])) { service, params, _ throws(RPCError) in
            let app = params.string("app")
            let after = params.integer("after", in: 0...Int.max)
            let limit = params.integer("limit", in: 1...ListCursor.maximumLimit)
            try params.check()
            let page = service.inbox.list(app: app, after: UInt64(after ?? 0), limit: limit ?? ListCursor.defaultLimit)
            return .object([("entries", .array(page.entries.map(\.json))),
                            ("next", page.next.map { .integer(Int64(clamping: $0)) } ?? .null)])
        },
        Method(ProtocolMethod(
            .inboxTake,
            summary: "Take entries out of an app's inbox (the front end has them): by ids, or every one up to an id.",
            parameters: [
                ProtocolField("app", .name, required: true, "The app whose entries are taken."),
                ProtocolField("ids", .array(.integer(atLeast: 1)), "Those entries. Give this or `upTo`, one of the two."),
                ProtocolField("upTo", .integer(atLeast: 1), "Every entry up to this id, itself included. Give this or `ids`, one of the two."),
            ],
            oneOf: ["ids", "upTo"],
            result: "`app`, and `taken`: the ids removed (ids not in the inbox are left out). `inbox.taken` tells the app's subscribers (the caller too, when it follows the app); nothing taken, nothing told.",
            returns: .object([appMember, ProtocolField("taken", .array(.integer(atLeast: 1)), required: true, "The ids removed.")]),
            errors: [-32602, -32010]),
               scope: RequestScope(writing: [.inbox])) { service, params, _ throws(RPCError) in
            try service.takeInbox(&params)
        },
    ]

    /// `inbox.take`: removes entries of an app's inbox, by ids or up to an id.
    private func takeInbox(_ params: inout Params) throws(RPCError) -> JSON {
        let app = params.string("app")
        let ids = params.integers("ids", in: 1...Int.max)
        let upTo = params.integer("upTo", in: 1...Int.max)
        try params.check()
        guard let app, (ids == nil) != (upTo == nil) else {
            throw .invalidParams("inbox.take takes \"ids\" (those entries) or \"upTo\" (every entry up to that id), one of the two.")
        }
        let chosen = Set((ids ?? []).map(UInt64.init))
        do throws(Diagnostic) {
            let taken = try inbox.take(of: app) { identifier in
                upTo.map { identifier <= UInt64($0) } ?? chosen.contains(identifier)
            }
            return .object([("app", .string(app)), ("taken", .array(taken.map { .integer(Int64(clamping: $0)) }))])
        } catch {
            throw .stateNotWritten(error)
        }
    }
}
