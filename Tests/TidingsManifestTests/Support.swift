import TestSupport
import Testing
import TidingsBase
import TidingsManifest

/// The bytes of `Fixtures/<name>`, found next to this source file.
func fixture(_ name: String, filePath: String = #filePath) throws -> [UInt8] {
    try FileSystem.readFile(Path.join(Path.join(Path.directory(of: filePath), "Fixtures"), name))
}

/// Decodes `text` (UTF-8) and returns the error it must throw.
func decodeError(_ text: String, file: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    try decodeError(Array(text.utf8), file: file, sourceLocation: sourceLocation)
}

/// Decodes `bytes` and returns the error it must throw.
func decodeError(_ bytes: [UInt8], file: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    try #require(throws: Diagnostic.self, sourceLocation: sourceLocation) {
        try PropertyList.decode(bytes, file: file)
    }
}

/// Decodes `text` (UTF-8), which must succeed.
func decode(_ text: String) throws -> PropertyListDocument {
    try PropertyList.decode(Array(text.utf8))
}

/// Assembles a binary property list from raw objects (a marker and its bytes each), with
/// the offset table and trailer a writer would add; for files no writer would produce.
func binaryPropertyList(_ objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1,
                        referenceSize: UInt8 = 1) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt64] = []
    for object in objects {
        offsets.append(UInt64(bytes.count))
        bytes += object
    }
    let table = UInt64(bytes.count)
    for offset in offsets { bytes += bigEndian(offset, size: Int(offsetSize)) }
    bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
    bytes += bigEndian(UInt64(objects.count), size: 8) + bigEndian(top, size: 8) + bigEndian(table, size: 8)
    return bytes
}

/// `value` as `size` big-endian bytes.
func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// A small, seeded generator (SplitMix64), so that every fuzz run tries the same inputs.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// The content extension manifest the fixtures hold, in order.
let contentExtension: PropertyList = .dictionary([
    ("CFBundleDevelopmentRegion", .string("en")),
    ("CFBundleDisplayName", .string("Event Invite")),
    ("CFBundleExecutable", .string("EventInvite")),
    ("CFBundleIdentifier", .string("com.example.calendar.EventInvite")),
    ("CFBundleInfoDictionaryVersion", .string("6.0")),
    ("CFBundleName", .string("EventInvite")),
    ("CFBundlePackageType", .string("XPC!")),
    ("CFBundleShortVersionString", .string("1.0")),
    ("CFBundleVersion", .string("1")),
    ("NSExtension", .dictionary([
        ("NSExtensionAttributes", .dictionary([
            ("UNNotificationExtensionCategory", .array([.string("EVENT_INVITE"), .string("EVENT_UPDATE")])),
            ("UNNotificationExtensionInitialContentSizeRatio", .real(0.75)),
            ("UNNotificationExtensionDefaultContentHidden", .bool(true)),
        ])),
        ("NSExtensionMainStoryboard", .string("MainInterface")),
        ("NSExtensionPointIdentifier", .string("com.apple.usernotifications.content-extension")),
    ])),
])

extension Finding {
    init(_ diagnostic: Diagnostic) {
        self.init(severity: diagnostic.severity.rawValue, code: diagnostic.code.rawValue, path: diagnostic.location.path)
    }
}

/// The diagnostics as findings, in order.
func findings(_ diagnostics: [Diagnostic]) -> [Finding] {
    diagnostics.map(Finding.init)
}
