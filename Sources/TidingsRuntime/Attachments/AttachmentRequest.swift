import TidingsBase

/// What asks to become an attachment, before the store has looked at it: a
/// service extension's `create_attachment`, or an entry of a payload's
/// `attachments` (UNNotificationAttachment's initializer and options).
package struct AttachmentRequest: Sendable, Equatable {
    /// The identifier asked for; "" for one the store generates.
    package var identifier: String
    /// An absolute path, a `file://` URL, or, with `base`, a path relative to it.
    package var url: String
    /// The directory a relative path is taken from and must stay within (a
    /// payload's directory); nil when only absolute paths and URLs are accepted.
    package var base: String?
    /// A uniform type identifier the content must match (the type hint).
    package var typeHint: String?
    /// How the thumbnail is shown.
    package var thumbnail: ThumbnailOptions
    /// Where the request was written (a payload file and JSON pointer), for diagnostics.
    package var location: Diagnostic.Location?

    /// A request for the file at `url`.
    package init(identifier: String = "", url: String, base: String? = nil, typeHint: String? = nil,
                 thumbnail: ThumbnailOptions = ThumbnailOptions(), location: Diagnostic.Location? = nil) {
        self.identifier = identifier
        self.url = url
        self.base = base
        self.typeHint = typeHint
        self.thumbnail = thumbnail
        self.location = location
    }
}
