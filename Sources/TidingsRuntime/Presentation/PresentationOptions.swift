import TidingsBase

/// How a notification is presented (`UNNotificationPresentationOptions`):
/// as a banner, kept in the list (the notification centre), with its sound,
/// with its badge. A notification for an app in the background has all four;
/// one for an app in the foreground has what the app's delegate answered.
package struct PresentationOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    package let rawValue: UInt8

    /// A value of `rawValue`'s bits.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Shown as a banner.
    package static let banner = PresentationOptions(rawValue: 1 << 0)
    /// Kept in the list of delivered notifications (the notification centre).
    package static let list = PresentationOptions(rawValue: 1 << 1)
    /// Its sound plays.
    package static let sound = PresentationOptions(rawValue: 1 << 2)
    /// Its badge is set.
    package static let badge = PresentationOptions(rawValue: 1 << 3)
    /// Every option: how a notification for an app in the background is presented.
    package static let all: PresentationOptions = [.banner, .list, .sound, .badge]

    /// The options' names, in the order the protocol lists them.
    package static let names: [(String, PresentationOptions)] = [
        ("banner", .banner), ("list", .list), ("sound", .sound), ("badge", .badge),
    ]

    /// True when the notification shows at all: as a banner or in the list.
    package var isPresented: Bool { !isDisjoint(with: [.banner, .list]) }

    /// The names of the options set, in the protocol's order.
    package var json: JSON {
        // One array, made at its size, where a filter and a map made two through closures: a presentation writes
        // these twice a delivery and its response (about 8 thousand instructions a cycle, counted).
        var names: [JSON] = []
        names.reserveCapacity(rawValue.nonzeroBitCount)
        for (name, option) in Self.names where contains(option) { names.append(.string(name)) }
        return .array(names)
    }

    /// The options `names` state, and the names not known. Apple's
    /// deprecated `"alert"` stands for a banner and the list, as on iOS 14
    /// and later.
    package static func named(_ names: [String]) -> (options: PresentationOptions, unknown: [String]) {
        var options: PresentationOptions = []
        var unknown: [String] = []
        for name in names {
            if name == "alert" {
                options.formUnion([.banner, .list])
            } else if let option = Self.names.first(where: { $0.0 == name })?.1 {
                options.insert(option)
            } else {
                unknown.append(name)
            }
        }
        return (options, unknown)
    }
}

/// How a notification about to be presented is presented, as a
/// `PresentationDecider` answers: its options and, when they hold neither a
/// banner nor the list, the display the delivery reports instead.
package struct PresentationDecision: Sendable {
    /// The options it is presented with.
    package var options: PresentationOptions
    /// What the delivery's `display` says when it is not presented
    /// (`options.isPresented` false); unused otherwise.
    package var withheld: DisplayKind
    /// Why it is presented so, for the delivery's diagnostics (a delegate
    /// that did not answer in time, an option not known).
    package var diagnostics: [Diagnostic]

    /// A decision of `options`, reporting `withheld` when they present nothing, with `diagnostics`.
    package init(options: PresentationOptions, withheld: DisplayKind = .foreground, diagnostics: [Diagnostic] = []) {
        self.options = options
        self.withheld = withheld
        self.diagnostics = diagnostics
    }

    /// Every option, as for an app in the background: what a host without a decider does.
    package static let all = PresentationDecision(options: .all)
}

/// Asked, once a notification's service stage is over and before anything
/// is shown or recorded, how the notification (the second argument, as it
/// will show) of an app (the first) is presented; calls its third argument
/// once, on any thread, now or later. A host's front end supplies it (the
/// server asks the app's foreground delegate); it must not wait for another
/// delivery.
package typealias PresentationDecider = @Sendable (
    _ app: String, _ notification: UserNotification, _ answer: @escaping @Sendable (PresentationDecision) -> Void
) -> Void
