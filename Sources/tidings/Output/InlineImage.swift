import TidingsBase
import TidingsRuntime

/// An image as a `data:` URL, for a page that loads nothing else. Only a
/// PNG, JPEG or GIF image (by its content) becomes one, so that the URL is
/// safe to put in an attribute as it is: a media type and base64.
struct InlineImage: Equatable {
    /// `data:image/…;base64,…`.
    let url: String

    private init(url: String) { self.url = url }

    /// The image in the file at `path`, of at most the image size limit; nil
    /// when it is not an image (whatever its name or declared type says) or
    /// cannot be read.
    init?(file path: String) {
        guard let bytes = try? FileSystem.readFile(path, limit: Int(MediaType.Family.image.sizeLimit)) else { return nil }
        self.init(bytes: bytes)
    }

    /// The image `bytes` are; nil when they are not a PNG, JPEG or GIF image.
    init?(bytes: [UInt8]) {
        let verdict = MediaSniffer.recognize(size: UInt64(bytes.count)) { offset, count in
            guard offset < UInt64(bytes.count) else { return [] }
            let start = Int(offset)
            return Array(bytes[start..<min(start + count, bytes.count)])
        }
        let mime: String
        switch verdict {
        case .recognized(.png): mime = "image/png"
        case .recognized(.jpeg): mime = "image/jpeg"
        case .recognized(.gif): mime = "image/gif"
        default: return nil
        }
        url = "data:\(mime);base64," + Base64.encode(bytes)
    }
}
