import TidingsBase

/// Attachments (as the protocol gives them: `identifier`, `type`, `url`, …)
/// that are image files a notification server can read from its path.
package enum ImageFile {
    /// The uniform type identifiers of the images servers read.
    private static let types: Set<String> = ["public.png", "public.jpeg", "com.compuserve.gif", "org.webmproject.webp"]
    /// The file name extensions of the same images, for attachments of an unknown type.
    private static let extensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp"]
    /// The most attachments of a notification looked at.
    private static let attachmentLimit = 100

    /// The absolute path of `attachment`'s file when it is a PNG, JPEG, GIF
    /// or WebP image (by its type, else its file name); nil otherwise.
    package static func path(ofAttachment attachment: JSON) -> String? {
        guard let path = localPath(of: attachment), isImage(attachment["type"]?.stringValue ?? "", path: path) else {
            return nil
        }
        return path
    }

    /// The first attachment of `attachments` that is an image to show as a
    /// thumbnail (not `thumbnailHidden`), as a path.
    static func firstThumbnail(in attachments: JSON?) -> String? {
        for attachment in (attachments?.arrayValue ?? []).prefix(Self.attachmentLimit)
        where attachment["thumbnailHidden"]?.boolValue != true {
            if let path = path(ofAttachment: attachment) { return path }
        }
        return nil
    }

    /// The attachment's absolute path: its `file://` `url`, else its `path`.
    private static func localPath(of attachment: JSON) -> String? {
        var path: String?
        if let url = attachment["url"]?.stringValue, url.hasPrefix("file://") {
            path = FileURL.path(of: url)
        } else {
            path = attachment["path"]?.stringValue
        }
        guard let path, path.hasPrefix("/"), !path.contains("\0") else { return nil }
        return path
    }

    /// Whether a file of type `type` (a uniform type identifier) at `path`
    /// is an image servers read: by its type, or by its name when the type
    /// is unknown ("") or only says "an image".
    private static func isImage(_ type: String, path: String) -> Bool {
        if types.contains(type) { return true }
        guard type.isEmpty || type == "public.image",
              let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return extensions.contains(path[path.index(after: dot)...].lowercased())
    }
}
