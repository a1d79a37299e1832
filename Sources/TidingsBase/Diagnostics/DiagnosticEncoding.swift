extension Diagnostic {
    /// Writes the diagnostic for `init(from:)`: severity, code, message and location.
    package func encode(into writer: inout ByteWriter) {
        writer.write(byte: severity.byte)
        writer.write(string: code.rawValue)
        writer.write(string: message)
        writer.write(optional: location.file) { $0.write(string: $1) }
        writer.write(optional: location.path) { $0.write(string: $1) }
        writer.write(optional: location.line) { $0.write(count: max(0, $1)) }
        writer.write(optional: location.column) { $0.write(count: max(0, $1)) }
    }

    /// Reads a diagnostic `encode(into:)` wrote.
    package init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let severity = try Severity(byte: reader.readByte())
        let code = Code(try reader.readString())
        let message = try reader.readString()
        let file = try reader.readOptionalString()
        let path = try reader.readOptionalString()
        let line = try reader.readBool() ? try reader.readCount(atMost: Int(Int32.max)) : nil
        let column = try reader.readBool() ? try reader.readCount(atMost: Int(Int32.max)) : nil
        let location = Location(file: file, path: path, line: line, column: column)
        self.init(severity, code, message, at: location)
    }
}

extension Diagnostic.Severity {
    /// The severity's byte in an encoding: 0 error, 1 warning, 2 note.
    fileprivate var byte: UInt8 {
        switch self {
        case .error: 0
        case .warning: 1
        case .note: 2
        }
    }

    /// The severity whose byte is `byte`.
    fileprivate init(byte: UInt8) throws(ByteReader.Malformed) {
        switch byte {
        case 0: self = .error
        case 1: self = .warning
        case 2: self = .note
        default: throw ByteReader.Malformed(description: "\(byte) is not a severity")
        }
    }
}
