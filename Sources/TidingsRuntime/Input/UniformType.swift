import TidingsBase

/// Uniform type identifiers for the media kinds notifications may carry.
package enum UniformType {
    /// The identifier Apple uses for a file's extension; "" when unknown.
    /// (Guessing from the name is a placeholder for sniffing the content.)
    package static func guess(forFile path: String) -> String {
        switch Path.pathExtension(of: path).lowercased() {
        case "png": "public.png"
        case "jpg", "jpeg": "public.jpeg"
        case "gif": "com.compuserve.gif"
        case "aif", "aiff": "public.aiff-audio"
        case "wav": "com.microsoft.waveform-audio"
        case "mp3": "public.mp3"
        case "m4a": "public.mpeg-4-audio"
        case "mpg", "mpeg": "public.mpeg"
        case "mp4", "m4v": "public.mpeg-4"
        case "avi": "public.avi"
        default: ""
        }
    }
}
