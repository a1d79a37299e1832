import TidingsBase

/// The outcome of reading an interface file.
package struct InterfaceReading: Sendable {
    /// The interface, or nil when any diagnostic is an error.
    package var interface: Interface?
    package var diagnostics: [Diagnostic]
}

extension Interface {
    /// The deepest nesting of elements accepted.
    package static let maximumDepth = 32

    /// Reads an interface file's bytes. Pure: no file is touched.
    package static func read(_ bytes: [UInt8], file: String? = nil) -> InterfaceReading {
        let json: JSON
        do {
            json = try JSON.parse(bytes, file: file)
        } catch {
            return InterfaceReading(interface: nil, diagnostics: [error])
        }
        var reader = InterfaceReader(file: file)
        let interface = reader.read(json)
        return InterfaceReading(interface: reader.fields.failed ? nil : interface, diagnostics: reader.diagnostics)
    }
}

extension Diagnostic.Code {
    /// The interface file's structure is wrong: a missing or mistyped member.
    package static let interfaceInvalid = Self("interface.invalid")
    /// An element's `type` is not label, image, stack, button or textField.
    package static let interfaceUnknownType = Self("interface.unknown-type")
    /// Two elements share an identifier.
    package static let interfaceDuplicateIdentifier = Self("interface.duplicate-identifier")
    /// The file's format version is not one this host reads.
    package static let interfaceVersion = Self("interface.unsupported-version")
    /// A member the format does not define; ignored.
    package static let interfaceUnknownMember = Self("interface.unknown-member")
}

private struct InterfaceReader {
    var fields: JSONFieldReader
    var identifiers: Set<String> = []

    init(file: String?) {
        fields = JSONFieldReader(file: file, invalidCode: .interfaceInvalid, unknownMemberCode: .interfaceUnknownMember)
    }

    var diagnostics: [Diagnostic] { fields.diagnostics }

    mutating func read(_ json: JSON) -> Interface? {
        guard let members = fields.object(json, at: []) else { return nil }
        fields.checkMembers(members, allowed: ["version", "root"], at: [])
        if let version = json["version"], version.integerValue != Interface.formatVersion {
            fields.report(.error, .interfaceVersion,
                          "This host reads interface format version \(Interface.formatVersion); the file says \(version.serialized()).",
                          at: ["version"])
        }
        guard let root = json["root"] else {
            fields.report(.error, .interfaceInvalid, "An interface file needs a \"root\" element.", at: [])
            return nil
        }
        return element(root, at: ["root"], depth: 1).map(Interface.init(root:))
    }

    mutating func element(_ json: JSON, at path: [String], depth: Int) -> InterfaceElement? {
        guard depth <= Interface.maximumDepth else {
            fields.report(.error, .interfaceInvalid, "Elements nest deeper than \(Interface.maximumDepth) levels.", at: path)
            return nil
        }
        guard let members = fields.object(json, at: path) else { return nil }
        let identifier = fields.string(json["id"], at: path + ["id"])
        if let identifier {
            if identifier.isEmpty {
                fields.report(.error, .interfaceInvalid, "An element's \"id\" is empty.", at: path + ["id"])
            } else if !identifiers.insert(identifier).inserted {
                fields.report(.error, .interfaceDuplicateIdentifier,
                              "The identifier \"\(identifier)\" is used by more than one element.", at: path + ["id"])
            }
        }
        let hidden = fields.bool(json["hidden"], at: path + ["hidden"]) ?? false
        let common = ["type", "id", "hidden"]
        switch json["type"]?.stringValue {
        case "label":
            fields.checkMembers(members, allowed: common + ["text", "textColor", "style"], at: path)
            let text = fields.string(json["text"], at: path + ["text"]) ?? ""
            var color: Color?
            if let hex = fields.string(json["textColor"], at: path + ["textColor"]) {
                color = Color(hex: hex)
                if color == nil {
                    fields.report(.error, .interfaceInvalid, "\"textColor\" must be #RRGGBB or #RRGGBBAA; it is \"\(hex)\".",
                                  at: path + ["textColor"])
                }
            }
            let style: InterfaceElement.TextStyle = fields.choice(json["style"], at: path + ["style"]) ?? .body
            return InterfaceElement(identifier: identifier, kind: .label(text: text, textColor: color, style: style),
                                    hidden: hidden)
        case "image":
            fields.checkMembers(members, allowed: common, at: path)
            return InterfaceElement(identifier: identifier, kind: .image(attachment: nil), hidden: hidden)
        case "stack":
            fields.checkMembers(members, allowed: common + ["axis", "spacing", "children"], at: path)
            let axis: InterfaceElement.Axis = fields.choice(json["axis"], at: path + ["axis"]) ?? .vertical
            let spacing = fields.number(json["spacing"], at: path + ["spacing"], in: 0...10_000) ?? 8
            var children: [InterfaceElement] = []
            for (position, child) in (fields.array(json["children"], at: path + ["children"]) ?? []).enumerated() {
                if let element = element(child, at: path + ["children", "\(position)"], depth: depth + 1) {
                    children.append(element)
                }
            }
            return InterfaceElement(identifier: identifier, kind: .stack(axis: axis, spacing: spacing, children: children),
                                    hidden: hidden)
        case "button":
            fields.checkMembers(members, allowed: common + ["title", "enabled"], at: path)
            requireIdentifier(identifier, of: "A button", at: path)
            let title = fields.string(json["title"], at: path + ["title"])
            if json["title"] == nil || title == "" {
                fields.report(.error, .interfaceInvalid,
                              title == nil ? "A button needs a \"title\"." : "A button's \"title\" is empty.", at: path + ["title"])
            }
            let enabled = fields.bool(json["enabled"], at: path + ["enabled"]) ?? true
            return InterfaceElement(identifier: identifier, kind: .button(title: title ?? "", enabled: enabled), hidden: hidden)
        case "textField":
            fields.checkMembers(members, allowed: common + ["text", "placeholder", "enabled"], at: path)
            requireIdentifier(identifier, of: "A text field", at: path)
            let text = fields.string(json["text"], at: path + ["text"]) ?? ""
            let placeholder = fields.string(json["placeholder"], at: path + ["placeholder"]) ?? ""
            let enabled = fields.bool(json["enabled"], at: path + ["enabled"]) ?? true
            return InterfaceElement(identifier: identifier,
                                    kind: .textField(text: text, placeholder: placeholder, enabled: enabled), hidden: hidden)
        case let other:
            let found = other.map { "\"\($0)\"" } ?? json["type"]?.typeDescription ?? "missing"
            fields.report(.error, .interfaceUnknownType,
                          "An element's \"type\" must be \"label\", \"image\", \"stack\", \"button\" or \"textField\"; it is \(found).",
                          at: path + ["type"])
            return nil
        }
    }

    /// Reports an element that takes input without an identifier, by which
    /// alone its events reach the extension and front ends address it.
    mutating func requireIdentifier(_ identifier: String?, of what: String, at path: [String]) {
        if identifier == nil {
            fields.report(.error, .interfaceInvalid,
                          "\(what) needs an \"id\": its events reach the extension by it.", at: path + ["id"])
        }
    }
}
