/// Reading AddNotification's `a{sv}`: each entry's variant read by its
/// signature (the buttons' `aa{sv}`, a GIcon's `(sv)`, the rest as
/// `BusValue`), then checked key by key.
extension PortalNotification {
    /// An entry's value as read, before it is checked.
    package enum Read {
        /// A value of `BusValue`'s types.
        case value(BusValue)
        /// An array of dictionaries (`aa{sv}`): the buttons.
        case dictionaries([[String: BusValue]])
        /// A `(sv)` structure: a serialized GIcon (or a version 2 sound).
        case tagged(String, BusValue?)
        /// Another type, skipped: its signature.
        case other(String)
    }

    /// Reads the `a{sv}` at the reader's position (the call's third argument).
    package static func readEntries(_ reader: borrowing MessageReader) throws(BusError) -> [(String, Read)] {
        try reader.readArray("{sv}") { (element: borrowing MessageReader) throws(BusError) in
            try element.inContainer("e", "sv") { (entry: borrowing MessageReader) throws(BusError) -> (String, Read) in
                let key = try entry.readString()
                let signature = try entry.variantSignature()
                switch signature {
                case "aa{sv}":
                    let buttons = try entry.inContainer("v", signature) { (variant: borrowing MessageReader) throws(BusError) in
                        try variant.readArray("a{sv}") { (button: borrowing MessageReader) throws(BusError) in
                            try button.readDictionary()
                        }
                    }
                    return (key, .dictionaries(buttons))
                case "(sv)":
                    let tagged = try entry.inContainer("v", signature) { (variant: borrowing MessageReader) throws(BusError) in
                        try variant.inContainer("r", "sv") { (pair: borrowing MessageReader) throws(BusError) in
                            (try pair.readString(), try pair.readVariant())
                        }
                    }
                    return (key, .tagged(tagged.0, tagged.1))
                default:
                    if let value = try entry.readVariant() { return (key, .value(value)) }
                    return (key, .other(signature))
                }
            }
        }
    }

    /// The notification `entries` describe.
    /// - Throws: why it is refused: a key of the wrong type, a value past `PortalLimits`.
    package init(entries: [(String, Read)]) throws(PortalRefusal) {
        for (key, read) in entries {
            switch (key, read) {
            case ("title", .value(.string(let text))):
                title = try Self.text(text, "title")
            case ("body", .value(.string(let text))):
                body = try Self.text(text, "body")
            case ("markup-body", .value(.string(let text))):
                body = PortalMarkup.plain(try Self.text(text, "markup-body"))
            case ("icon", .tagged(let kind, let value)):
                icon = try PortalIcon(kind: kind, value: value)
                if icon == nil { ignored.append("icon (\(kind))") }
            case ("icon", .value(.string(let name))):
                // A GIcon with one theme name (or a file's URI, which is not taken) serializes as a string.
                if DesktopText.name(name) == name, !name.contains("/") { icon = .themed([name]) } else { ignored.append("icon") }
            case ("priority", .value(.string(let level))):
                guard ["low", "normal", "high", "urgent"].contains(level) else {
                    throw PortalRefusal(sentence: "\(level.debugDescription) is not a priority")
                }
                priority = level
            case ("default-action", .value(.string(let action))):
                defaultAction = try Self.action(action, "default-action")
            case ("default-action-target", .value(let target)):
                defaultActionTarget = try Self.target(target, "default-action-target")
            case ("default-action-target", .other), ("default-action-target", .tagged), ("default-action-target", .dictionaries):
                ignored.append("default-action-target (of a type not taken)")
            case ("buttons", .dictionaries(let list)):
                guard list.count <= PortalLimits.buttons else {
                    throw PortalRefusal(sentence: "\(list.count) buttons are more than \(PortalLimits.buttons)")
                }
                buttons = try list.map { (button) throws(PortalRefusal) in try Self.button(button) }
            case ("category", .value(.string(let name))):
                category = DesktopText.name(name)
            case ("display-hint", .value(.strings(let hints))):
                guard hints.count <= PortalLimits.displayHints else {
                    throw PortalRefusal(sentence: "\(hints.count) display hints are more than \(PortalLimits.displayHints)")
                }
                displayHints = hints.compactMap(DesktopText.name)
            case ("sound", .value(.string(let sound))) where sound == "default" || sound == "silent":
                self.sound = sound == "default"
            case ("title", _), ("body", _), ("markup-body", _), ("priority", _), ("default-action", _), ("buttons", _),
                 ("category", _), ("display-hint", _):
                throw PortalRefusal(sentence: "\(key) is not of the type the portal's specification gives")
            default:
                ignored.append(key)
            }
        }
    }

    /// `text`, checked against `PortalLimits.text`.
    private static func text(_ text: String, _ key: String) throws(PortalRefusal) -> String {
        guard text.utf8.count <= PortalLimits.text else {
            throw PortalRefusal(sentence: "\(key) is longer than \(PortalLimits.text) bytes")
        }
        return text
    }

    /// An action name: not empty, within the bound, no control characters.
    private static func action(_ name: String, _ key: String) throws(PortalRefusal) -> String {
        guard !name.isEmpty, name.utf8.count <= PortalLimits.identifier,
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw PortalRefusal(sentence: "\(key) is no action name")
        }
        return name
    }

    /// A target, checked against `PortalLimits.target` (as the JSON it is kept as).
    private static func target(_ value: BusValue, _ key: String) throws(PortalRefusal) -> BusValue {
        guard PortalTarget.json(value).serialized().utf8.count <= PortalLimits.target else {
            throw PortalRefusal(sentence: "\(key) is larger than \(PortalLimits.target) bytes")
        }
        return value
    }

    /// A button: `label` and `action` strings, an optional `target`; other keys (version 2's `purpose`) ignored.
    private static func button(_ entries: [String: BusValue]) throws(PortalRefusal) -> Button {
        guard case .string(let label)? = entries["label"], case .string(let action)? = entries["action"] else {
            throw PortalRefusal(sentence: "a button needs a label and an action, both strings")
        }
        guard !label.isEmpty else { throw PortalRefusal(sentence: "a button's label is empty") }
        return Button(label: try text(label, "a button's label"), action: try Self.action(action, "a button's action"),
                      target: try entries["target"].map { (value) throws(PortalRefusal) in try target(value, "a button's target") })
    }
}
