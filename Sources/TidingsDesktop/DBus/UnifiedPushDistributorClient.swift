/// A typed client of a UnifiedPush distributor (the D-Bus specification,
/// DBUS_0.3.0, UnifiedPush's `specifications` repository): it owns a name
/// beginning with `org.unifiedpush.Distributor.` and exports
/// `org.unifiedpush.Distributor2` (variant dictionaries), or in older ones
/// `org.unifiedpush.Distributor1` (positional strings), at
/// `/org/unifiedpush/Distributor`. Every call is asynchronous (see
/// `BusConnection.callAsync`).
package struct UnifiedPushDistributorClient: Sendable {
    /// What every distributor's bus name begins with.
    package static let namePrefix = "org.unifiedpush.Distributor."
    /// The distributor's object.
    package static let path = "/org/unifiedpush/Distributor"

    /// The interface a distributor speaks.
    package enum Version: String, Sendable, Equatable {
        /// `org.unifiedpush.Distributor2`: `Register(a{sv}) → a{sv}`, `Unregister(a{sv}) → a{sv}`.
        case two = "org.unifiedpush.Distributor2"
        /// `org.unifiedpush.Distributor1`: `Register(s service, s token, s description) → (s, s)`, `Unregister(s token)`.
        case one = "org.unifiedpush.Distributor1"
    }

    /// What `Register` answered.
    package enum RegisterAnswer: Sendable, Equatable {
        /// `REGISTRATION_SUCCEEDED` (Distributor1: `NEW_ENDPOINT`): `NewEndpoint` follows.
        case succeeded
        /// `REGISTRATION_FAILED` (Distributor1: also `REGISTRATION_REFUSED`) with its reason
        /// (`INTERNAL_ERROR`, `NETWORK`, `ACTION_REQUIRED`, `VAPID_REQUIRED`, `UNAUTHORIZED`).
        case failed(reason: String)
    }

    /// The most bytes of a reason kept from a distributor's answer (the rest is cut, for the log).
    static let reasonLimit = 200

    /// The distributor's bus name.
    package let name: String

    /// A client of the distributor owning `name`.
    package init(name: String) {
        self.name = name
    }

    /// The distributors on the bus: the names owned now that begin with
    /// `namePrefix` (`ListNames`), sorted.
    package static func list(on bus: borrowing BusConnection,
                             completion: @escaping (borrowing BusConnection, Result<[String], BusError>) -> Void)
        throws(BusError) {
        try BusDaemonClient.listNames(on: bus) { connection, result in
            completion(connection, result.map { names in names.filter(isDistributorName).sorted() })
        }
    }

    /// True when `name` is a distributor's: the prefix and something after it.
    package static func isDistributorName(_ name: String) -> Bool {
        name.hasPrefix(namePrefix) && name.utf8.count > namePrefix.utf8.count
    }

    /// `Register`: asks the distributor for an endpoint for `token`, the
    /// connector being the owner of `service`; `description` may be shown to
    /// the person. In `version`'s form.
    package func register(service: String, token: String, description: String, version: Version,
                          on bus: borrowing BusConnection,
                          completion: @escaping (borrowing BusConnection, Result<RegisterAnswer, BusError>) -> Void)
        throws(BusError) {
        switch version {
        case .two:
            try bus.callAsync(name, Self.path, version.rawValue, "Register", arguments: {
                (message: borrowing MessageWriter) throws(BusError) in
                try message.append(dictionary: ["service": .string(service), "token": .string(token),
                                                "description": .string(description)])
            }, reply: { (reply: borrowing MessageReader) throws(BusError) in
                try Self.answer2(try reply.readDictionary())
            }, completion: completion)
        case .one:
            try bus.callAsync(name, Self.path, version.rawValue, "Register", arguments: {
                (message: borrowing MessageWriter) throws(BusError) in
                try message.append(service)
                try message.append(token)
                try message.append(description)
            }, reply: { (reply: borrowing MessageReader) throws(BusError) in
                let result = try reply.readString()
                let reason = (try? reply.readString()) ?? ""
                return Self.answer1(result, reason)
            }, completion: completion)
        }
    }

    /// `Unregister` of `token`, in `version`'s form.
    package func unregister(token: String, version: Version, on bus: borrowing BusConnection,
                            completion: @escaping (borrowing BusConnection, Result<Void, BusError>) -> Void) throws(BusError) {
        try bus.callAsync(name, Self.path, version.rawValue, "Unregister", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in
            switch version {
            case .two: try message.append(dictionary: ["token": .string(token)])
            case .one: try message.append(token)
            }
        }, reply: { (_: borrowing MessageReader) in }, completion: completion)
    }

    /// True when `error` says the distributor does not have `Distributor2`
    /// (an older one, with `Distributor1` only): the call is made again in that form.
    package static func lacksVersion2(_ error: BusError) -> Bool {
        error.code == BusError.callFailed
            && ["org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface"].contains(error.name)
    }

    /// Distributor2's answer: `success` (a string) and, when it failed, `reason`.
    /// - Throws: `dbus.unexpected-reply` when `success` is missing or says neither.
    package static func answer2(_ answer: [String: BusValue]) throws(BusError) -> RegisterAnswer {
        guard case .string(let success)? = answer["success"] else {
            throw BusError(BusError.unexpectedReply, "the distributor's Register answer has no success (a string)")
        }
        switch success {
        case "REGISTRATION_SUCCEEDED": return .succeeded
        case "REGISTRATION_FAILED":
            guard case .string(let reason)? = answer["reason"] else { return .failed(reason: "INTERNAL_ERROR") }
            return .failed(reason: reason.cut(toUTF8Bytes: reasonLimit))
        default:
            throw BusError(BusError.unexpectedReply, "the distributor's Register answered \(success.cut(toUTF8Bytes: reasonLimit)), "
                           + "neither REGISTRATION_SUCCEEDED nor REGISTRATION_FAILED")
        }
    }

    /// Distributor1's answer: `NEW_ENDPOINT`, or a failure (`REGISTRATION_FAILED`,
    /// `REGISTRATION_REFUSED`, anything else) with its reason.
    package static func answer1(_ result: String, _ reason: String) -> RegisterAnswer {
        result == "NEW_ENDPOINT" ? .succeeded : .failed(reason: (reason.isEmpty ? result : reason).cut(toUTF8Bytes: reasonLimit))
    }
}
