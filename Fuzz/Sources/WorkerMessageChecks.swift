import TidingsIsolation

/// The host's reader of what a worker sends (and the worker's reader of what
/// the host sends): a message it accepts is written again in bytes that read
/// back as the same message, and those bytes are stable.
enum WorkerMessageChecks {
    static func check(_ bytes: [UInt8]) {
        guard let message = try? WorkerMessage(decoding: bytes) else { return }
        let encoded = message.encoded
        guard let again = try? WorkerMessage(decoding: encoded) else {
            preconditionFailure("a message's own encoding does not decode")
        }
        precondition(again.encoded == encoded, "a message reads back as another message")
    }
}
