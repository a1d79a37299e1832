import Synchronization
import TidingsBase
import TidingsCrypto

/// The push registrations, one per app, and what the front ends said of
/// the distributor; kept in `registrations.json` in the push directory
/// (`STATE/push`) so that tokens, keys, endpoints and the ids of the
/// messages accepted survive restarts.
///
/// The file holds private keys: its directory is 0700 and the user's own
/// (never a link: `FileDescriptor(openingPrivateDirectory:)`), the file is
/// read only when it is a regular file of the user's own, not through a
/// link, and it is replaced whole, 0600 — a temporary file written,
/// flushed and renamed over it, then the directory flushed
/// (`DurableFile.replace`). A change is written before it is made: one
/// that cannot be written is not made.
package final class PushStore: Sendable {
    /// What the store holds, under one lock.
    private struct Contents {
        /// The registrations, by token.
        var byToken: [String: PushRegistration] = [:]
        /// The token of each app's registration.
        var tokenOfApp: [String: String] = [:]
        /// What the front ends last said of the distributor.
        var distributor = PushDistributor()
    }

    /// The file, nil when registrations are kept in memory only.
    package let file: String?
    /// Why the registrations could not be read: every change is refused then
    /// (writing would lose them), nil when they were.
    package let unavailable: Diagnostic?
    /// The ids remembered per registration.
    private let rememberedIDs: Int
    /// The registrations and the report, under one lock.
    private let contents: Mutex<Contents>

    /// The name of the file in the push directory.
    package static let fileName = "registrations.json"

    /// The store in `directory` (made 0700 when missing), its registrations
    /// read back; in memory only when `directory` is nil. A directory or
    /// file that cannot be used leaves the store `unavailable`.
    package init(directory: String?, rememberedIDs: Int = PushMessageIDs.defaultLimit) {
        self.rememberedIDs = rememberedIDs
        guard let directory else {
            file = nil
            unavailable = nil
            contents = Mutex(Contents())
            return
        }
        let file = Path.join(directory, Self.fileName)
        self.file = file
        var loaded = Contents()
        do throws(Diagnostic) {
            for registration in try Self.load(file, rememberedIDs: rememberedIDs) {
                loaded.byToken[registration.token] = registration
                loaded.tokenOfApp[registration.app] = registration.token
            }
            unavailable = nil
        } catch {
            unavailable = error
        }
        contents = Mutex(loaded)
    }

    /// Checks that the push directory `directory` and its file can be used
    /// (made when missing): for `tidings serve` to refuse to start rather
    /// than serve without its registrations.
    package static func check(_ directory: String) throws(Diagnostic) {
        _ = try load(Path.join(directory, fileName), rememberedIDs: PushMessageIDs.defaultLimit)
    }

    // MARK: Reading

    /// The registration of `app`, if it has one.
    package func registration(ofApp app: String) -> PushRegistration? {
        contents.withLock { contents in contents.tokenOfApp[app].flatMap { contents.byToken[$0] } }
    }

    /// The registration of `token`, if one has it.
    package func registration(token: String) -> PushRegistration? {
        contents.withLock { $0.byToken[token] }
    }

    /// Every registration (of `app` alone, when given), by app.
    package func registrations(of app: String? = nil) -> [PushRegistration] {
        contents.withLock { contents in
            contents.byToken.values.filter { app == nil || $0.app == app }.sorted { $0.app < $1.app }
        }
    }

    /// What the front ends last said of the distributor.
    package var distributor: PushDistributor {
        contents.withLock { $0.distributor }
    }

    // MARK: Changing

    /// The registration of `app`, made (and written) when it has none;
    /// `made` says which. Thrown: keys that cannot be made, a record that cannot be written.
    package func register(_ app: String) throws(Diagnostic) -> (registration: PushRegistration, made: Bool) {
        try changing { (contents: inout Contents) throws(Diagnostic) in
            if let token = contents.tokenOfApp[app], let existing = contents.byToken[token] { return (existing, false) }
            let made: PushRegistration
            do throws(CryptoError) {
                made = try PushRegistration.make(for: app, rememberedIDs: rememberedIDs)
            } catch {
                throw .error(.pushKeysUnavailable, "No keys can be made for the push registration of \(app): \(error.description)")
            }
            var next = contents
            next.byToken[made.token] = made
            next.tokenOfApp[app] = made.token
            try write(next)
            contents = next
            return (made, true)
        }
    }

    /// Deletes the registration of `app` and its keys; returns it, nil when it had none.
    package func unregister(_ app: String) throws(Diagnostic) -> PushRegistration? {
        guard let token = registration(ofApp: app)?.token else { return nil }
        return try remove(token: token)
    }

    /// Deletes the registration of `token` and its keys; returns it, nil when none has it.
    package func remove(token: String) throws(Diagnostic) -> PushRegistration? {
        try changing { (contents: inout Contents) throws(Diagnostic) in
            guard let removed = contents.byToken[token] else { return nil }
            var next = contents
            next.byToken[token] = nil
            next.tokenOfApp[removed.app] = nil
            try write(next)
            contents = next
            return removed
        }
    }

    /// Gives the registration of `token` its endpoint; returns it, nil when none has the token.
    package func setEndpoint(_ endpoint: String, token: String) throws(Diagnostic) -> PushRegistration? {
        try update(token) { $0.endpoint = endpoint; $0.failure = nil }
    }

    /// Notes the distributor's refusal of the registration of `token`; returns it, nil when none has the token.
    package func setFailure(_ reason: String, token: String) throws(Diagnostic) -> PushRegistration? {
        try update(token) { $0.failure = reason }
    }

    /// Whether the registration of `token` accepted a message of `id` before.
    package func hasSeen(_ id: String, token: String) -> Bool {
        contents.withLock { $0.byToken[token]?.seen.contains(id) ?? false }
    }

    /// Remembers that the registration of `token` accepted the message `id`
    /// (written before it returns); false when it had accepted it before, or
    /// none has the token.
    package func accept(_ id: String, token: String) throws(Diagnostic) -> Bool {
        try changing { (contents: inout Contents) throws(Diagnostic) in
            guard var registration = contents.byToken[token], registration.seen.insert(id) else { return false }
            var next = contents
            next.byToken[token] = registration
            try write(next)
            contents = next
            return true
        }
    }

    /// Records what a front end said of the distributor: its name, nil when
    /// there is none, and what it added. Kept in memory: a restarted server
    /// waits for a front end to say it again.
    package func report(distributor name: String?, note: String?, from reporter: ObjectIdentifier? = nil) {
        contents.withLock { contents in
            contents.distributor = PushDistributor()
            contents.distributor.reported = true
            contents.distributor.name = name
            contents.distributor.note = note
            contents.distributor.reporter = reporter
        }
    }

    /// Forgets what the front end on connection `reporter` said of the
    /// distributor, when it was the last to say it: it ended, and with it
    /// the connector (`noFrontEnd` until another front end reports).
    package func reporterEnded(_ reporter: ObjectIdentifier) {
        contents.withLock { contents in
            if contents.distributor.reporter == reporter { contents.distributor = PushDistributor() }
        }
    }

    // MARK: The file

    /// Runs `change` on the contents under the lock; refused when the registrations could not be read.
    private func changing<Result>(_ change: (inout Contents) throws(Diagnostic) -> Result) throws(Diagnostic) -> Result {
        if let unavailable { throw unavailable }
        return try contents.withLock { (contents: inout Contents) throws(Diagnostic) -> Result in try change(&contents) }
    }

    /// Changes the registration of `token` as `change` says, written first.
    private func update(_ token: String, _ change: (inout PushRegistration) -> Void) throws(Diagnostic) -> PushRegistration? {
        try changing { (contents: inout Contents) throws(Diagnostic) in
            guard var registration = contents.byToken[token] else { return nil }
            change(&registration)
            var next = contents
            next.byToken[token] = registration
            try write(next)
            contents = next
            return registration
        }
    }

    /// Replaces the file with `contents` (nothing in memory only).
    private func write(_ contents: Contents) throws(Diagnostic) {
        guard let file else { return }
        let registrations = contents.byToken.values.sorted { $0.app < $1.app }.map(\.stored)
        let document = JSON.object([("version", .integer(1)), ("registrations", .array(registrations))])
        // The directory again, as it must be: a link or another user's put in its place is refused.
        _ = try FileDescriptor(openingPrivateDirectory: Path.directory(of: file))
        try DurableFile.replace(file, with: Array(document.serialized(pretty: true).utf8) + [10], mode: 0o600)
    }

    /// The registrations `file` holds: none when it is missing; thrown when
    /// its directory or it cannot be used, or it does not read.
    private static func load(_ file: String, rememberedIDs: Int) throws(Diagnostic) -> [PushRegistration] {
        _ = try FileDescriptor(openingPrivateDirectory: Path.directory(of: file))
        let bytes: [UInt8]
        do throws(Diagnostic) {
            bytes = try FileSystem.readFile(file, limit: 256 << 20, own: true)
        } catch where error.code == .fileNotFound {
            return []
        }
        let document = try JSON.parse(bytes, file: file)
        guard let stored = document["registrations"]?.arrayValue else {
            throw .error(.pushRegistrationsUnreadable, "\(file) holds no \"registrations\" list.", at: .init(file: file))
        }
        var registrations: [PushRegistration] = []
        for entry in stored { registrations.append(try PushRegistration(stored: entry, file: file, rememberedIDs: rememberedIDs)) }
        return registrations
    }
}

extension Diagnostic.Code {
    /// The keys of a push registration cannot be made (no libcrypto, or it failed).
    package static let pushKeysUnavailable = Self("push.keys-unavailable")
}
