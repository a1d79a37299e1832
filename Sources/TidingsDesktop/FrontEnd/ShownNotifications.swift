import Glibc
import TidingsBase
import TidingsCrypto
import TidingsProtocol

/// What the front end shows on the desktop: each Tidings notification's
/// desktop id (by app and identifier, `NotificationKey`), the presentation last sent for it (its fingerprint, kept
/// across restarts, and the mapping itself while the front end runs), and the
/// last event `seq` handled, and which notification server gave those ids
/// (the bus's id and the server's unique name on it). Kept in a small file (`desktop.json`), written
/// atomically by `persist()` after the changes of a round of the loop, so
/// that a restarted front end replaces rather than doubles what is on screen
/// and resumes where it stopped.
package struct ShownNotifications {
    /// One notification on the desktop.
    package struct Entry {
        /// The notification server's id; 0 when the desktop closed it by itself (`retire`).
        package var desktopID: UInt32
        /// The fingerprint of the Notify arguments last sent.
        package var fingerprint: String
        /// The mapping last sent; nil after a restart until it is mapped again.
        package var presentation: DesktopPresentation?
    }

    /// The notifications shown, by app and identifier.
    package private(set) var entries: [NotificationKey: Entry] = [:]
    /// The `seq` of the last event handled; nil before the first.
    package private(set) var lastSeq: Int64?
    /// The bus (its id) and the notification server (its unique name) the
    /// desktop ids are of; nil before the first connection.
    package private(set) var notificationServer: (bus: String, owner: String)?
    /// The file; nil: kept in memory only.
    private let path: String?
    /// True when something changed since the file was written.
    private var changed = false

    /// What `path` kept (nothing when it is missing, unreadable or not its
    /// form: the front end then re-lists, which doubles nothing it could not know of).
    package init(path: String?) {
        self.path = path
        guard let path, let bytes = try? FileSystem.readFile(path, limit: 16 << 20, own: true),
              let kept = try? JSON.parse(bytes, file: path) else { return }
        lastSeq = kept["lastSeq"]?.integerValue
        if let bus = kept["bus"]?.stringValue, let owner = kept["notificationServer"]?.stringValue {
            notificationServer = (bus, owner)
        }
        // Each entry names its app; an older file's `shown` was an object by identifier alone:
        // its entries are kept without an app until a delivery or a re-list says whose they are (`adopt`).
        let items: [(NotificationKey, JSON)] = kept["shown"]?.arrayValue.map { array in
            array.compactMap { value in
                guard let app = value["app"]?.stringValue, let identifier = value["identifier"]?.stringValue else { return nil }
                return (NotificationKey(app: app, identifier: identifier), value)
            }
        } ?? (kept["shown"]?.objectMembers ?? []).map { (NotificationKey(app: "", identifier: $0.0), $0.1) }
        for (key, value) in items {
            guard let id = value["id"]?.integerValue, let desktopID = UInt32(exactly: id) else { continue }
            entries[key] = Entry(desktopID: desktopID, fingerprint: value["fingerprint"]?.stringValue ?? "",
                                 presentation: nil)
        }
    }

    /// The notification shown as `desktopID`.
    package func key(of desktopID: UInt32) -> NotificationKey? {
        guard desktopID != 0 else { return nil }
        return entries.first { $0.value.desktopID == desktopID }?.key
    }

    /// Gives an entry an older file kept without its app (`key.legacy`) to
    /// `key`, when `key` has none of its own: the first delivery or re-list of
    /// the identifier says whose it was. True when it moved one.
    @discardableResult
    package mutating func adopt(_ key: NotificationKey) -> Bool {
        guard !key.app.isEmpty, entries[key] == nil, let entry = entries.removeValue(forKey: key.legacy) else { return false }
        entries[key] = entry
        markChanged()
        return true
    }

    /// Records that `key` is shown as `desktopID` with `presentation`.
    package mutating func show(_ key: NotificationKey, as desktopID: UInt32, _ presentation: DesktopPresentation) {
        entries[key] = Entry(desktopID: desktopID, fingerprint: Self.fingerprint(of: presentation.notification),
                                    presentation: presentation)
        markChanged()
    }

    /// Keeps `presentation` as the mapping of `key`, shown already with
    /// the same arguments (after a restart, or a change the desktop cannot show).
    package mutating func remember(_ key: NotificationKey, _ presentation: DesktopPresentation) {
        entries[key]?.presentation = presentation
    }

    /// Records that the desktop closed `key` by itself (it expired,
    /// or the user dismissed it): still delivered, no longer on screen, and
    /// not shown again by a re-list unless its presentation changes.
    package mutating func retire(_ key: NotificationKey) {
        guard entries[key] != nil else { return }
        entries[key]?.desktopID = 0
        markChanged()
    }

    /// Forgets `key`; its entry, if it had one.
    @discardableResult
    package mutating func forget(_ key: NotificationKey) -> Entry? {
        let entry = entries.removeValue(forKey: key)
        if entry != nil { markChanged() }
        return entry
    }

    /// Forgets every desktop id on screen (the notification server is another
    /// one now); the notifications the desktop closed by itself stay retired.
    package mutating func forgetShown() {
        entries = entries.filter { $0.value.desktopID == 0 }
        markChanged()
    }

    /// Records that the desktop ids to come are those of the notification
    /// server `owner` on the bus `bus`; when the ids kept are another's (the
    /// next login's bus and server number from 1 again), forgets them
    /// (`forgetShown`). True when it forgot them.
    package mutating func showing(onBus bus: String, server owner: String) -> Bool {
        if let notificationServer, notificationServer == (bus, owner) { return false }
        notificationServer = (bus, owner)
        forgetShown()
        return true
    }

    /// Records the `seq` of an event handled; false for one handled already (not larger than the last).
    package mutating func handle(seq: Int64) -> Bool {
        if let lastSeq, seq <= lastSeq { return false }
        lastSeq = seq
        markChanged()
        return true
    }

    /// Starts counting again after `seq`: the server could not resume (it
    /// may be a server with fresh state, which numbers from 1 again).
    package mutating func restart(after seq: Int64) {
        guard lastSeq != seq else { return }
        lastSeq = seq
        markChanged()
    }

    /// A stable digest of Notify's arguments but `replacesID` (hints in key
    /// order); the arguments themselves where libcrypto is missing.
    package static func fingerprint(of notification: DesktopNotification) -> String {
        var text = [notification.appName, notification.appIcon, notification.summary, notification.body,
                    String(notification.expireTimeout)]
        text += notification.actions.flatMap { [$0.key, $0.label] }
        text += notification.hints.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let joined = text.joined(separator: "\u{1F}")
        return (try? SHA256.hex(of: Array(joined.utf8))) ?? joined
    }

    /// Notes that the file is to be written again.
    private mutating func markChanged() {
        changed = true
    }

    /// Writes the file if something changed, atomically; a file that cannot
    /// be written only costs a re-list after a restart.
    package mutating func persist() {
        guard changed, let path else { return }
        changed = false
        // An array, each entry naming its app: an object by identifier could not hold two apps' `dose-1`.
        let shown = entries.sorted { $0.key < $1.key }.map { key, entry in
            JSON.object([("app", .string(key.app)), ("identifier", .string(key.identifier)),
                         ("id", .integer(Int64(entry.desktopID))), ("fingerprint", .string(entry.fingerprint))])
        }
        let file = JSON.object([("lastSeq", lastSeq.map(JSON.integer) ?? .null),
                                ("bus", notificationServer.map { .string($0.bus) } ?? .null),
                                ("notificationServer", notificationServer.map { .string($0.owner) } ?? .null),
                                ("shown", .array(shown))])
        try? DurableFile.replace(path, with: Array(file.serialized().utf8))
    }
}
