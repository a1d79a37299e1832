/// What a connection acts as: an app (confined to its own app) or a front
/// end (acts for the user: may decide, sees every app).
package enum ClientRole: String, Sendable, CaseIterable {
    /// An app connection: every call confined to its app.
    case app
    /// A front end: the desktop, the command line, a shell; today's rights.
    case frontEnd
}
