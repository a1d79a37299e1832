import TidingsBase

/// The sandbox a peer runs in, as read from outside it at accept (its
/// `/.flatpak-info`, its AppArmor label or cgroup): the app id comes from
/// the sandbox, not from what the peer says.
package struct PeerSandbox: Sendable, Equatable {
    /// Which sandbox.
    package enum Kind: String, Sendable {
        /// Flatpak: `[Application] name=` of `/.flatpak-info`.
        case flatpak
        /// Snap: the snap's name, of `snap.NAME.APP`.
        case snap
    }

    /// Which sandbox.
    package var kind: Kind
    /// The app id the sandbox gives: the Flatpak app id, or the snap's name.
    package var app: String
    /// The sandbox's instance: Flatpak's `instance-id`, or the snap's app; nil when it names none.
    package var instance: String?

    /// A sandbox of `kind` for `app`.
    package init(kind: Kind, app: String, instance: String? = nil) {
        self.kind = kind
        self.app = app
        self.instance = instance
    }

    /// As the protocol carries it: `{kind, app, instance}`.
    package var json: JSON {
        .object([("kind", .string(kind.rawValue)), ("app", .string(app)), ("instance", instance.map(JSON.string) ?? .null)])
    }
}
