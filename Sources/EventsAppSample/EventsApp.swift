import Glibc
import TidingsBase
import TidingsDesktop

/// The sample app's side of org.freedesktop.Application: each call it
/// receives, as a line printed and (with `--record`) a JSON line appended.
final class EventsApp {
    /// The app's identifier, its bus name: EventInvite's app.
    static let busName = "com.example.events"

    private let options: Options
    /// Set by each call; the loop clears it to measure idleness.
    var called = false
    /// The unique name of the desktop front end (the owner of
    /// `org.tidings.Desktop`), the only caller whose responses it accepts.
    var frontEnd: String?

    init(options: Options) {
        self.options = options
    }

    /// Handles one call to the app's object; calls to other interfaces or
    /// members are left unanswered (sd-bus then answers UnknownMethod).
    func handle(_ call: borrowing MethodCall) throws(BusError) {
        guard call.arguments.interface == ApplicationClient.interface else { return }
        let record: JSON
        switch call.arguments.member {
        case "Activate":
            record = .object([("method", .string("Activate")),
                              ("platformData", Self.json(.dictionary(try call.arguments.readDictionary())))])
        case "Open":
            let uris = try call.arguments.readStrings()
            record = .object([("method", .string("Open")), ("uris", .array(uris.map(JSON.string))),
                              ("platformData", Self.json(.dictionary(try call.arguments.readDictionary())))])
        case "ActivateAction":
            let action = try call.arguments.readString()
            // Anyone on the bus can call: a response is the front end's to give.
            if action == "tidings.response", call.arguments.sender == nil || call.arguments.sender != frontEnd {
                writeLine("tidings-events-app: refused a response from \(call.arguments.sender ?? "nobody"), "
                          + "which does not own \(DesktopBus.busName)", to: 2)
                throw BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.AccessDenied",
                               "tidings.response is accepted from the owner of \(DesktopBus.busName) only")
            }
            let parameter = try call.arguments.readVariants()
            record = .object([("method", .string("ActivateAction")), ("action", .string(action)),
                              ("parameter", parameter.first.map(Self.json) ?? .null),
                              ("platformData", Self.json(.dictionary(try call.arguments.readDictionary())))])
        default:
            return
        }
        // Recorded before the reply: whoever hears the reply finds the line.
        report(record)
        called = true
        try call.reply()
    }

    /// Prints the call (a sentence, or the JSON line with `--json`) and appends it to the record.
    private func report(_ record: JSON) {
        let line = record.serialized()
        writeLine(options.json ? line : Self.sentence(record), to: 1)
        guard let path = options.record else { return }
        do throws(SystemError) {
            let file = try FileDescriptor(opening: path, O_WRONLY | O_CREAT | O_APPEND, mode: 0o644)
            try file.write(Array((line + "\n").utf8))
        } catch {
            writeLine("tidings-events-app: cannot append to \(path): \(error)", to: 2)
        }
    }

    /// One line for people: what the app was asked to do.
    static func sentence(_ record: JSON) -> String {
        let method = record["method"]?.stringValue ?? "?"
        guard method == "ActivateAction" else {
            let uris = record["uris"]?.arrayValue?.compactMap(\.stringValue).joined(separator: " ") ?? ""
            return uris.isEmpty ? method : "\(method) \(uris)"
        }
        let action = record["action"]?.stringValue ?? ""
        guard action == "tidings.response", let parameter = record["parameter"] else {
            return "ActivateAction \(action)"
        }
        var words = "response: \(parameter["action"]?.stringValue ?? "?") on \(parameter["notification"]?.stringValue ?? "?")"
        if let text = parameter["text"]?.stringValue { words += " with the text \"\(text)\"" }
        if let entry = parameter["entry"]?.integerValue { words += " (inbox entry \(entry)" }
        if parameter["opensApp"]?.boolValue == true { words += ", opens the app" }
        return words + ")"
    }

    /// A D-Bus value as JSON: dictionaries as objects, byte arrays as arrays of numbers.
    static func json(_ value: BusValue) -> JSON {
        switch value {
        case .string(let v): .string(v)
        case .bool(let v): .bool(v)
        case .byte(let v): .integer(Int64(v))
        case .int32(let v): .integer(Int64(v))
        case .uint32(let v): .integer(Int64(v))
        case .int64(let v): .integer(v)
        case .double(let v): .double(v)
        case .bytes(let v): .array(v.map { .integer(Int64($0)) })
        case .strings(let v): .array(v.map(JSON.string))
        case .dictionary(let v): .object(v.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        }
    }
}
