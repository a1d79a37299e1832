import TidingsBase

extension Interface {
    /// Writes the interface for `init(from:)`: its element tree, depth first.
    package func encode(into writer: inout ByteWriter) {
        root.encode(into: &writer)
    }

    /// Reads an interface `encode(into:)` wrote, refusing trees deeper than `maximumDepth`.
    package init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init(root: try InterfaceElement(from: &reader, depth: 1))
    }
}

extension InterfaceElement {
    /// Writes the element and, for a stack, its children. Kinds are 0 label, 1 image, 2 stack, 3 button, 4 text field.
    fileprivate func encode(into writer: inout ByteWriter) {
        writer.write(optional: identifier) { $0.write(string: $1) }
        writer.write(bool: hidden)
        switch kind {
        case .label(let text, let textColor, let style):
            writer.write(byte: 0)
            writer.write(string: text)
            writer.write(optional: textColor) { $0.write(count: Int($1.rgba)) }
            writer.write(string: style.rawValue)
        case .image(let attachment):
            writer.write(byte: 1)
            writer.write(optional: attachment) { $0.write(string: $1) }
        case .stack(let axis, let spacing, let children):
            writer.write(byte: 2)
            writer.write(string: axis.rawValue)
            writer.write(double: spacing)
            writer.write(array: children) { $1.encode(into: &$0) }
        case .button(let title, let enabled):
            writer.write(byte: 3)
            writer.write(string: title)
            writer.write(bool: enabled)
        case .textField(let text, let placeholder, let enabled):
            writer.write(byte: 4)
            writer.write(string: text)
            writer.write(string: placeholder)
            writer.write(bool: enabled)
        }
    }

    /// Reads an element at nesting `depth` (the root is 1).
    fileprivate init(from reader: inout ByteReader, depth: Int) throws(ByteReader.Malformed) {
        guard depth <= Interface.maximumDepth else { throw ByteReader.Malformed(description: "an interface is nested too deeply") }
        let identifier = try reader.readOptionalString()
        let hidden = try reader.readBool()
        let kind: Kind
        switch try reader.readByte() {
        case 0:
            let text = try reader.readString()
            let color = try reader.readBool() ? Color(rgba: UInt32(try reader.readCount(atMost: Int(UInt32.max)))) : nil
            kind = .label(text: text, textColor: color, style: try Self.choice(reader.readString()))
        case 1:
            kind = .image(attachment: try reader.readOptionalString())
        case 2:
            let axis: Axis = try Self.choice(reader.readString())
            let spacing = try reader.readDouble()
            var children: [InterfaceElement] = []
            for _ in 0..<(try reader.readCount()) { children.append(try InterfaceElement(from: &reader, depth: depth + 1)) }
            kind = .stack(axis: axis, spacing: spacing, children: children)
        case 3:
            kind = .button(title: try reader.readString(), enabled: try reader.readBool())
        case 4:
            kind = .textField(text: try reader.readString(), placeholder: try reader.readString(), enabled: try reader.readBool())
        case let other:
            throw ByteReader.Malformed(description: "\(other) is not an element kind")
        }
        self.init(identifier: identifier, kind: kind, hidden: hidden)
    }

    /// The case of `Choice` named `name`.
    private static func choice<Choice: RawRepresentable<String>>(_ name: String) throws(ByteReader.Malformed) -> Choice {
        guard let choice = Choice(rawValue: name) else { throw ByteReader.Malformed(description: "\(name) is not a \(Choice.self)") }
        return choice
    }
}
