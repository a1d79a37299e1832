import TidingsBase
import TidingsRuntime

/// The notification every benchmark delivers: an APNs payload with an alert
/// (title, subtitle, body), a sound, a thread, category "noop", and two custom
/// keys. As on iOS, the whole payload becomes userInfo (three entries: aps,
/// build, branch), so the first delivery of each notification value also
/// serialises it for the ABI.
enum SamplePayload {
    /// The payload's JSON text, as the one-shot `tidings deliver` reads it from a file.
    static let text = """
        {
          "aps": {
            "alert": {"title": "Build 1024 passed", "subtitle": "main", "body": "All 312 tests passed in 4 min 12 s."},
            "category": "\(BundleFarm.category)",
            "thread-id": "bench",
            "sound": "default"
          },
          "build": 1024,
          "branch": "main"
        }

        """

    /// The payload as a notification with request identifier `identifier`;
    /// `thread` replaces the payload's thread ("" for none).
    static func notification(identifier: String, thread: String) throws(BenchmarkFailure) -> UserNotification {
        let json: JSON
        do {
            json = try JSON.parse(Array(text.utf8))
        } catch {
            throw BenchmarkFailure("The sample payload is not JSON: \(error.message)")
        }
        let reading = Payload.decode(json, identifier: identifier)
        guard var notification = reading.notification, !reading.diagnostics.containsError else {
            throw BenchmarkFailure("The sample payload does not decode: \(reading.diagnostics.map(\.message).joined(separator: " "))")
        }
        notification.content.threadIdentifier = thread
        return notification
    }
}
