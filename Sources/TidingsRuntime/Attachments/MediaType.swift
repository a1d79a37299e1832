/// A kind of media a notification may carry: the types Apple's
/// UNNotificationAttachment supports, each with its uniform type identifier
/// and the size limit of its family.
package enum MediaType: String, CaseIterable, Sendable {
    case jpeg
    case png
    case gif
    case wave
    case aiff
    case mp3
    case mpeg4Audio
    case mpeg
    case mpeg2Video
    case mpeg4
    case avi

    /// Images, audio or video: what decides the size limit.
    package enum Family: String, Sendable {
        case image
        case audio
        case video

        /// The largest file Apple accepts for the family, in bytes: images
        /// 10 MB, audio 5 MB, video 50 MB. Counted in decimal megabytes, as
        /// Apple counts file sizes, so that whatever Tidings accepts iOS does too.
        package var sizeLimit: UInt64 {
            switch self {
            case .image: 10_000_000
            case .audio: 5_000_000
            case .video: 50_000_000
            }
        }

        /// The family's uniform type identifier, which a type hint may name.
        package var identifier: String {
            switch self {
            case .image: "public.image"
            case .audio: "public.audio"
            case .video: "public.movie"
            }
        }
    }

    /// The uniform type identifier Apple gives the type.
    package var identifier: String {
        switch self {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .wave: "com.microsoft.waveform-audio"
        case .aiff: "public.aiff-audio"
        case .mp3: "public.mp3"
        case .mpeg4Audio: "public.mpeg-4-audio"
        case .mpeg: "public.mpeg"
        case .mpeg2Video: "public.mpeg-2-video"
        case .mpeg4: "public.mpeg-4"
        case .avi: "public.avi"
        }
    }

    /// The family: image, audio or video.
    package var family: Family {
        switch self {
        case .jpeg, .png, .gif: .image
        case .wave, .aiff, .mp3, .mpeg4Audio: .audio
        case .mpeg, .mpeg2Video, .mpeg4, .avi: .video
        }
    }

    /// The file name extension the store gives a file of this type, so that
    /// front ends that go by name see the right one.
    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .wave: "wav"
        case .aiff: "aiff"
        case .mp3: "mp3"
        case .mpeg4Audio: "m4a"
        case .mpeg: "mpg"
        case .mpeg2Video: "m2v"
        case .mpeg4: "mp4"
        case .avi: "avi"
        }
    }

    /// How people call it: "PNG image", "MP3 audio file".
    package var displayName: String {
        switch self {
        case .jpeg: "JPEG image"
        case .png: "PNG image"
        case .gif: "GIF image"
        case .wave: "WAVE audio file"
        case .aiff: "AIFF audio file"
        case .mp3: "MP3 audio file"
        case .mpeg4Audio: "MPEG-4 audio file"
        case .mpeg: "MPEG video"
        case .mpeg2Video: "MPEG-2 video"
        case .mpeg4: "MPEG-4 video"
        case .avi: "AVI video"
        }
    }

    /// The type whose identifier is `identifier`, if it is one of these.
    package init?(identifier: String) {
        guard let found = Self.allCases.first(where: { $0.identifier == identifier }) else { return nil }
        self = found
    }

    /// True when a file of this type satisfies the type hint `identifier`:
    /// the type's own identifier, its family's (`public.image`,
    /// `public.audio`, `public.movie`, and `public.audiovisual-content` for
    /// audio and video), or one every file conforms to (`public.data`,
    /// `public.content`, `public.item`).
    package func conforms(to identifier: String) -> Bool {
        switch identifier {
        case self.identifier, family.identifier, "public.data", "public.content", "public.item": true
        case "public.audiovisual-content": family != .image
        default: false
        }
    }
}
