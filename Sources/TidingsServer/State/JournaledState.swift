import Glibc
import Synchronization
import TidingsBase
import TidingsRuntime

/// The server's state on disk, in a `RecordStore` (`server.snapshot` and
/// `server.journal` under `$XDG_STATE_HOME/tidings`): each change is one
/// journal record, appended before the call that made it is answered; the
/// journal is folded into a new snapshot once it grows past a limit.
///
/// Records are JSON: `{"categories": APP, "list": [...]}`,
/// `{"delivered": APP, "width": W, "notification": {...}}` and
/// `{"removed": [IDS]}`; the snapshot is
/// `{"version": 1, "categories": [{"app", "categories"}], "delivered": [{"app", "width", "notification"}]}`.
package final class JournaledState: ServerState {
    /// What was kept when the state was opened.
    package let kept: KeptState
    private let store: RecordStore
    private let model: Mutex<Model>
    /// The lock on `server.lock`, held while this state is open, so that two
    /// servers never write one state.
    private let lock: FileDescriptor
    /// Told of a change that could not be written.
    private let failed: @Sendable (Diagnostic) -> Void
    /// The journal size past which it is folded into a snapshot, in bytes.
    private let compactionThreshold: Int

    /// The state as the files hold it: the latest record per app and per notification.
    private struct Model {
        /// Each app's categories, as category-file JSON.
        var categories: [String: JSON] = [:]
        /// The delivered notifications' records, by identifier, with their order.
        var delivered: [String: (order: Int, record: JSON)] = [:]
        var nextOrder = 0

        /// Applies one journal record; false when it is not one.
        mutating func apply(_ record: JSON) -> Bool {
            if let app = record["categories"]?.stringValue, let list = record["list"], list.arrayValue != nil {
                categories[app] = list
            } else if record["delivered"]?.stringValue != nil, record["width"]?.doubleValue != nil,
                      let identifier = record["notification"]?["identifier"]?.stringValue {
                delivered[identifier] = (nextOrder, record)
                nextOrder += 1
            } else if let removed = record["removed"]?.arrayValue {
                for identifier in removed.compactMap(\.stringValue) { delivered[identifier] = nil }
            } else {
                return false
            }
            return true
        }

        /// The whole state as one snapshot.
        var snapshot: JSON {
            .object([
                ("version", .integer(1)),
                ("categories", .array(categories.keys.sorted().map { app in
                    .object([("app", .string(app)), ("categories", categories[app]!)])
                })),
                ("delivered", .array(delivered.values.sorted { $0.order < $1.order }.map(\.record))),
            ])
        }
    }

    /// Opens (or makes) the state in `directory`, reading back what it kept.
    /// - Parameter failed: told when a change cannot be written (a full disk, say).
    package init(directory: String, compactionThreshold: Int = 4 << 20,
                 failed: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) {
        lock = try Self.lock(directory)
        store = RecordStore(directory: directory, name: "server")
        self.failed = failed
        self.compactionThreshold = compactionThreshold
        let loaded = try store.load()
        var model = Model()
        var diagnostics = loaded.recovered
        if let snapshot = loaded.snapshot {
            do {
                let json = try JSON.parse(snapshot)
                for entry in json["categories"]?.arrayValue ?? [] {
                    if let app = entry["app"]?.stringValue, let list = entry["categories"] {
                        _ = model.apply(.object([("categories", .string(app)), ("list", list)]))
                    }
                }
                for record in json["delivered"]?.arrayValue ?? [] where !model.apply(record) {
                    diagnostics.append(.warning(.stateUnreadable, "A delivered notification in the snapshot could not be read; it was left out."))
                }
            } catch {
                diagnostics.append(.error(.stateUnreadable, "The snapshot is not the JSON this server writes (\(error.message)); it was ignored."))
            }
        }
        for entry in loaded.entries {
            guard let record = try? JSON.parse(entry), model.apply(record) else {
                diagnostics.append(.warning(.stateUnreadable, "A journal record could not be read; it was skipped."))
                continue
            }
        }
        kept = Self.kept(from: model, diagnostics: diagnostics)
        self.model = Mutex(model)
    }

    /// Takes `server.lock` in `directory`, or says another server holds it;
    /// the directory and the lock are opened as what they must be (a private
    /// directory, a regular file of the user's own).
    /// The corresponding C function is `flock(LOCK_EX | LOCK_NB)`.
    private static func lock(_ directory: String) throws(Diagnostic) -> FileDescriptor {
        let path = Path.join(directory, "server.lock")
        _ = try FileDescriptor(openingPrivateDirectory: directory)
        let file = try FileDescriptor(openingOwn: path, as: .regularFile, O_RDWR | O_CREAT, mode: 0o600)
        guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else {
            throw .error(.stateLocked, "Another server keeps its state in \(directory); give this one another --state.",
                         at: .init(file: path))
        }
        return file
    }

    /// The typed state `model` holds.
    private static func kept(from model: Model, diagnostics: [Diagnostic]) -> KeptState {
        var kept = KeptState()
        kept.diagnostics = diagnostics
        for app in model.categories.keys.sorted() {
            let reading = CategoryFile.read(.object([("app", .string(app)), ("categories", model.categories[app]!)]))
            if let file = reading.file {
                kept.categories.append((app, file.categories))
            } else {
                kept.diagnostics.append(.warning(.stateUnreadable, "The kept categories of \(app) could not be read; they were left out."))
            }
        }
        for (_, record) in model.delivered.values.sorted(by: { $0.order < $1.order }) {
            guard let app = record["delivered"]?.stringValue, let width = record["width"]?.doubleValue,
                  let notification = record["notification"].flatMap(NotificationRecord.notification)
            else {
                kept.diagnostics.append(.warning(.stateUnreadable, "A kept notification could not be read; it was left out."))
                continue
            }
            kept.delivered.append((app, notification, width))
        }
        return kept
    }

    // MARK: Recording

    package func recordCategories(_ categories: [NotificationCategory], of app: String) {
        record(.object([("categories", .string(app)), ("list", .array(categories.map(\.json)))]))
    }

    package func recordDelivery(of notification: UserNotification, to app: String, width: Double) {
        record(.object([("delivered", .string(app)), ("width", .double(width)),
                        ("notification", NotificationRecord.json(notification))]))
    }

    package func recordRemoval(of identifiers: [String]) {
        record(.object([("removed", .array(identifiers.map(JSON.string)))]))
    }

    /// Applies `record` and appends it; folds the journal into a snapshot when it has grown.
    private func record(_ record: JSON) {
        var bytes: [UInt8] = []
        record.serialize(into: &bytes)
        model.withLock { model in
            guard model.apply(record) else { return }
            do throws(Diagnostic) {
                try store.append(bytes)
                if store.journalSize > compactionThreshold {
                    var snapshot: [UInt8] = []
                    model.snapshot.serialize(into: &snapshot)
                    try store.compact(into: snapshot)
                }
            } catch {
                failed(error)
            }
        }
    }
}

extension Diagnostic.Code {
    /// Part of the server's kept state could not be read back.
    package static let stateUnreadable = Self("state.unreadable")
    /// Another server holds the state directory.
    package static let stateLocked = Self("state.locked")
}
