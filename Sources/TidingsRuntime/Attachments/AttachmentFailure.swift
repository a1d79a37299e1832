import TidingsBase

/// Why a file did not become an attachment: Apple's error code and a
/// diagnostic whose sentence says what was wrong with which file.
package struct AttachmentFailure: Error, Sendable, Equatable {
    /// Apple's UNErrorCode for attachments, with its raw values.
    package enum Code: Int32, Sendable, CaseIterable {
        /// Missing, not a regular file, not a file URL, or outside its base.
        case invalidURL = 100
        /// The content is of no supported type, or not of the hinted one.
        case unrecognizedType = 101
        /// Empty, or larger than its type allows.
        case invalidFileSize = 102
        /// The attachment is no longer in the host's store.
        case notInDataStore = 103
        /// The file could not be moved or copied into the store.
        case moveIntoDataStoreFailed = 104
        /// The content carries a type's signature but is damaged.
        case corrupt = 105

        /// Apple's name for the code: "UNErrorCodeAttachmentInvalidURL".
        package var appleName: String {
            switch self {
            case .invalidURL: "UNErrorCodeAttachmentInvalidURL"
            case .unrecognizedType: "UNErrorCodeAttachmentUnrecognizedType"
            case .invalidFileSize: "UNErrorCodeAttachmentInvalidFileSize"
            case .notInDataStore: "UNErrorCodeAttachmentNotInDataStore"
            case .moveIntoDataStoreFailed: "UNErrorCodeAttachmentMoveIntoDataStoreFailed"
            case .corrupt: "UNErrorCodeAttachmentCorrupt"
            }
        }

        /// The diagnostic code that goes with it.
        var diagnosticCode: Diagnostic.Code {
            switch self {
            case .invalidURL: .attachmentInvalidURL
            case .unrecognizedType: .attachmentUnrecognizedType
            case .invalidFileSize: .attachmentInvalidFileSize
            case .notInDataStore: .attachmentNotInDataStore
            case .moveIntoDataStoreFailed: .attachmentMoveIntoDataStoreFailed
            case .corrupt: .attachmentCorrupt
            }
        }
    }

    /// Apple's code.
    package var code: Code
    /// The error, whose message names the file and the reason.
    package var diagnostic: Diagnostic
    /// Set when the file was refused for the store's quota once too often
    /// by its bundle (`attachment.store-abuse`): a fault of the extension's.
    package var abuse: Diagnostic?

    /// A failure of `code` saying `sentence` (no final period) about the file
    /// `request` asked for, reported with `diagnosticCode` (the code's own by default).
    package init(_ code: Code, _ sentence: String, request: AttachmentRequest, code diagnosticCode: Diagnostic.Code? = nil) {
        self.code = code
        var location = request.location ?? Diagnostic.Location()
        if location.file == nil { location.file = request.url }
        diagnostic = .error(diagnosticCode ?? code.diagnosticCode,
                            "\(sentence) (Apple's error \(code.rawValue), \(code.appleName)).", at: location)
    }

    /// Apple's raw code, 100–105.
    package var appleCode: Int32 { code.rawValue }
}

extension Diagnostic.Code {
    /// The attachment's file is missing, not a regular file, not a file URL, or outside its base (Apple's 100).
    package static let attachmentInvalidURL = Self("attachment.invalid-url")
    /// The attachment's content is of no supported type, or not of the hinted one (Apple's 101).
    package static let attachmentUnrecognizedType = Self("attachment.unrecognized-type")
    /// The attachment's file is empty or too large for its type (Apple's 102).
    package static let attachmentInvalidFileSize = Self("attachment.invalid-file-size")
    /// The attachment is no longer in the store (Apple's 103).
    package static let attachmentNotInDataStore = Self("attachment.not-in-data-store")
    /// The attachment's file could not be moved or copied into the store (Apple's 104).
    package static let attachmentMoveIntoDataStoreFailed = Self("attachment.move-failed")
    /// The attachment's content is damaged (Apple's 105).
    package static let attachmentCorrupt = Self("attachment.corrupt")
    /// The attachment would pass the store's quota for its notification, bundle or app (Apple's 104).
    package static let attachmentStoreQuota = Self("attachment.store-quota")
    /// A bundle went on creating attachments through the store quota's refusals: a fault.
    package static let attachmentStoreAbuse = Self("attachment.store-abuse")
}
