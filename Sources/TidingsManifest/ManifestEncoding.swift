import TidingsBase

extension Manifest {
    /// Writes the manifest for `init(from:)`, every field in declaration order.
    package func encode(into writer: inout ByteWriter) {
        writer.write(string: bundleIdentifier)
        writer.write(string: executable)
        writer.write(optional: displayName) { $0.write(string: $1) }
        writer.write(optional: version) { $0.write(string: $1) }
        writer.write(string: point.rawValue)
        writer.write(optional: interfaceName) { $0.write(string: $1) }
        writer.write(array: categories) { $0.write(string: $1) }
        writer.write(optional: initialContentSizeRatio) { $0.write(double: $1) }
        writer.write(bool: defaultContentHidden)
        writer.write(bool: overridesDefaultTitle)
        writer.write(bool: userInteractionEnabled)
        writer.write(bool: sharedWorker)
    }

    /// Reads a manifest `encode(into:)` wrote. The manifest was validated
    /// when it was read from its property list; it is not validated again.
    package init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let bundleIdentifier = try reader.readString()
        let executable = try reader.readString()
        let displayName = try reader.readOptionalString()
        let version = try reader.readOptionalString()
        let pointName = try reader.readString()
        guard let point = ExtensionPoint(rawValue: pointName) else {
            throw ByteReader.Malformed(description: "\(pointName) is not an extension point")
        }
        let interfaceName = try reader.readOptionalString()
        var categories: [String] = []
        for _ in 0..<(try reader.readCount()) { categories.append(try reader.readString()) }
        let ratio = try reader.readBool() ? try reader.readDouble() : nil
        self.init(bundleIdentifier: bundleIdentifier, executable: executable, displayName: displayName, version: version,
                  point: point, interfaceName: interfaceName, categories: categories, initialContentSizeRatio: ratio,
                  defaultContentHidden: try reader.readBool(), overridesDefaultTitle: try reader.readBool(),
                  userInteractionEnabled: try reader.readBool(), sharedWorker: try reader.readBool())
    }
}
