// STUB: replaced by MAPPING at merge
/// What the desktop's notification server can show: its GetCapabilities.
package struct ServerCapabilities: Hashable, Sendable {
    /// The capabilities, as GetCapabilities names them.
    package init(_ names: [String]) { self.names = Set(names) }
    /// The capabilities' names.
    package var names: Set<String>
    /// "actions".
    package var actions: Bool { names.contains("actions") }
    /// "body".
    package var body: Bool { names.contains("body") }
    /// "body-markup".
    package var bodyMarkup: Bool { names.contains("body-markup") }
    /// "body-images".
    package var bodyImages: Bool { names.contains("body-images") }
    /// "inline-reply".
    package var inlineReply: Bool { names.contains("inline-reply") }
    /// "persistence".
    package var persistence: Bool { names.contains("persistence") }
    /// "sound".
    package var sound: Bool { names.contains("sound") }
}
