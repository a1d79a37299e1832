import TidingsBase
import TidingsRuntime

extension HostService {
    /// One method: its entry in the protocol reference, what it touches, and how it runs.
    struct Method: Sendable {
        /// What a method answers through: called once, now or later.
        typealias Reply = @Sendable (Result<JSON, RPCError>) -> Void
        /// A method that answers at once.
        typealias Run = @Sendable (HostService, inout Params, any EventReceiver) throws(RPCError) -> JSON
        /// A method that may answer later: it throws for parameters it
        /// refuses, else calls its reply once, on this thread or another,
        /// holding no thread while it waits (a completion).
        typealias RunLater = @Sendable (HostService, inout Params, any EventReceiver, @escaping Reply) throws(RPCError) -> Void

        /// What the reference says of it: name, summary, parameters, result, errors.
        let documentation: ProtocolMethod
        /// What a call with these parameters reads and changes, for ordering
        /// it among the calls of its connection.
        let scope: @Sendable (JSON?) -> RequestScope
        /// Runs the method with the call's parameters (read by the entry's names) for `client`.
        let run: RunLater

        /// The method `documentation` describes, touching what `scope` says of its parameters.
        init(_ documentation: ProtocolMethod, scope: @escaping @Sendable (JSON?) -> RequestScope, run: @escaping Run) {
            self.init(documentation, scope: scope, later: { service, params, client, reply throws(RPCError) in
                reply(.success(try run(service, &params, client)))
            })
        }

        /// The method `documentation` describes, touching `scope` whatever its parameters.
        init(_ documentation: ProtocolMethod, scope: RequestScope, run: @escaping Run) {
            self.init(documentation, scope: { _ in scope }, run: run)
        }

        /// The method `documentation` describes, touching what `scope` says
        /// of its parameters, that may answer later (`RunLater`).
        init(_ documentation: ProtocolMethod, scope: @escaping @Sendable (JSON?) -> RequestScope,
             later: @escaping RunLater) {
            self.documentation = documentation
            self.scope = scope
            self.run = later
        }
    }

    /// The methods, by name: the one table the server dispatches from and
    /// the protocol reference is made from, gathered from the families.
    static let methods: [String: Method] = Dictionary(
        uniqueKeysWithValues: methodTable.map { ($0.documentation.name, $0) })

    /// Every method, family by family, in the order the reference lists them.
    static let methodTable: [Method] = helloMethods + serverMethods + categoryMethods + appMethods + authorizationMethods
        + foregroundMethods + deliveryMethods + notificationMethods + requestMethods + interfaceMethods + inboxMethods
        + eventMethods + pushMethods

    /// Every method's entry in the protocol reference, in the order it lists them.
    package static var protocolMethods: [ProtocolMethod] { methodTable.map(\.documentation) }

    /// What `request` reads and changes (nothing, when it could not be read
    /// or names no method), for ordering it among the calls of its connection.
    package static func scope(of request: Result<RPCRequest, RPCFailure>) -> RequestScope {
        guard case .success(let request) = request, let method = methods[request.method] else { return .nothing }
        // Every call is confined by the connection's identity, which a hello before it may change.
        var scope = method.scope(request.params)
        scope.reads.insert(.identity)
        return scope
    }

    /// Answers `request` from `client` by calling `reply` once, on the
    /// calling thread or later on another: a call that waits for an
    /// extension's completion holds no thread while it waits.
    package func answer(_ request: RPCRequest, from client: any EventReceiver,
                        reply: @escaping @Sendable (Result<JSON, RPCError>) -> Void) {
        guard let method = Self.methods[request.method] else {
            let hint = Suggestion.closest(to: request.method, among: Array(Self.methods.keys)).map { "; did you mean \"\($0)\"?" }
                ?? "; server.describe lists the methods."
            return reply(.failure(.methodNotFound("There is no method \"\(request.method)\"\(hint)")))
        }
        do throws(RPCError) {
            var params = try Params(try confined(request.params, of: method.documentation, for: client), of: method.documentation)
            try method.run(self, &params, client, reply)
        } catch {
            reply(.failure(error))
        }
    }

    /// Answers `request` from `client`, waiting on the calling thread.
    package func answer(_ request: RPCRequest, from client: any EventReceiver) -> Result<JSON, RPCError> {
        let answer = Rendezvous<Result<JSON, RPCError>>()
        self.answer(request, from: client) { answer.give($0) }
        return answer.take()
    }
}
