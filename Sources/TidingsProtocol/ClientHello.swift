import TidingsBase

/// What a client says of itself first (`server.hello`): an app and its
/// app id, or a front end. Each client sends it as the first request on
/// every connection it opens, without waiting for its answer: the server
/// orders every later call after it. A server older than hello answers
/// -32601, and the client goes on as the front end such a server took
/// every connection for.
package enum ClientHello {
    /// The params of a front end's hello; `client` says what it is, for the server's log.
    package static func frontEnd(client: String) -> JSON {
        .object([("role", .string("frontEnd")), ("client", .string(client))])
    }

    /// The params of app `app`'s hello; `client` says what it is, for the server's log.
    package static func app(_ app: String, client: String) -> JSON {
        .object([("role", .string("app")), ("app", .string(app)), ("client", .string(client))])
    }

    /// The JSON-RPC code of a server that has no `server.hello` (older than it): not a failure.
    package static let unknownToServer: Int64 = -32601
}
