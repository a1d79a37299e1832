/// `file://` URLs, as attachments carry them.
package enum FileURL {
    /// The `file://` URL of the absolute `path`, percent-encoding what a URL path may not hold.
    package static func url(of path: String) -> String {
        var encoded = "file://"
        for byte in path.utf8 {
            let safe = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "/-._~!$&'()*+,;=:@".utf8.contains(byte)
            if safe {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }

    /// The path of a `file://` URL, percent-decoded; `file://localhost/x` and
    /// `file:///x` both give `/x`. Nil when the decoded path is not UTF-8 or
    /// holds a NUL byte, which no file name can.
    package static func path(of url: String) -> String? {
        var rest = url.dropFirst("file://".count)
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
        var bytes: [UInt8] = []
        var utf8 = Array(rest.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let high = hexValue(utf8[utf8.startIndex]), let low = hexValue(utf8[utf8.startIndex + 1]) {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0) else { return nil }
        return bytes.withUnsafeBufferPointer { ValidUTF8.string($0) }
    }

    /// The value of one hexadecimal digit; nil for any other byte (a sign included).
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
