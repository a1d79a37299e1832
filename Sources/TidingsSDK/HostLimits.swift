internal import TidingsABI

/// The limits the host applies to what an extension passes it (its
/// `tidings.limits/1` interface), which may exceed those of the header the
/// SDK was built with. Lengths are in bytes of UTF-8.
public struct HostLimits: Sendable, Equatable {
    /// Element, action, attachment, category and thread identifiers; userInfo keys.
    public var maxIdentifierBytes: Int
    /// `setText`'s text, a content's body.
    public var maxTextBytes: Int
    /// Titles, a sound's name.
    public var maxTitleBytes: Int
    /// A log message (longer ones are cut).
    public var maxLogBytes: Int
    /// An attachment's URL.
    public var maxURLBytes: Int
    /// One userInfo value's JSON in a content handed back.
    public var maxUserInfoValueBytes: Int
    /// userInfo entries and attachments of a content handed back.
    public var maxEntries: Int
    /// The most actions `setNotificationActions` takes.
    public var maxActions: Int
    /// Host calls an instance may make per second, on average (infinite when unlimited).
    public var callsPerSecond: Double
    /// Host calls an instance may make at once before the rate applies.
    public var callBurst: Double

    /// The limits the host's interface gives.
    init(_ limits: tidings_limits_interface) {
        maxIdentifierBytes = Int(limits.max_identifier_bytes)
        maxTextBytes = Int(limits.max_text_bytes)
        maxTitleBytes = Int(limits.max_title_bytes)
        maxLogBytes = Int(limits.max_log_bytes)
        maxURLBytes = Int(limits.max_url_bytes)
        maxUserInfoValueBytes = Int(limits.max_user_info_value_bytes)
        maxEntries = Int(limits.max_entries)
        maxActions = Int(limits.max_actions)
        callsPerSecond = limits.calls_per_second
        callBurst = limits.call_burst
    }
}
