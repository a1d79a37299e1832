import Glibc

/// Writes `text` and a newline to `descriptor` (1: standard output, 2:
/// standard error) at once, unbuffered: a log shows each call as it comes.
func writeLine(_ text: String, to descriptor: Int32) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(descriptor, bytes.baseAddress, bytes.count) }
}
