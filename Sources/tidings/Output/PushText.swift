import TidingsBase

/// What `tidings push` prints: a registration's device token (the endpoint,
/// the keys, the subscription a Web Push library takes), the registrations
/// as a table, and the distributor, or what to install or start when there is none.
struct PushText {
    let terminal: Terminal

    /// The distributors a user may install, for the messages that say none is on the bus.
    static let distributors = "KUnifiedPush (KDE), ntfy's UnifiedPush distributor or NextPush; Debian packages none"

    /// The answer of `push.register` for `app`.
    func registered(_ answer: JSON, app: String) -> String {
        let status = answer["status"]?.stringValue ?? "unknown"
        var text = terminal.bold(app) + ": " + statusWords(status, distributor: answer["distributor"]?.stringValue) + "\n"
        if let endpoint = answer["endpoint"]?.stringValue {
            text += "  Endpoint      \(endpoint)\n"
            text += "  p256dh        \(answer["publicKey"]?.stringValue ?? "?")\n"
            text += "  auth          \(answer["auth"]?.stringValue ?? "?")\n"
            text += "  Subscription  \(subscription(answer).serialized())\n"
            text += terminal.dim("  Hand the subscription to the app's server: it is what Web Push libraries send to.") + "\n"
        }
        if status != "registered" { text += "  " + advice(status, message: answer["message"]?.stringValue) + "\n" }
        return text
    }

    /// The answer of `push.unregister` for `app`.
    func unregistered(_ answer: JSON, app: String) -> String {
        answer["unregistered"]?.boolValue == true
            ? "\(app): unregistered; its keys are deleted and pushes for it are refused from now on.\n"
            : "\(app) was not registered for remote notifications.\n"
    }

    /// The answer of `push.list` as a table (`app`: the one asked for, if any).
    func list(_ answer: JSON, app: String?) -> String {
        let registrations = answer["registrations"]?.arrayValue ?? []
        var text = distributorLine(answer) + "\n"
        guard !registrations.isEmpty else {
            return text + (app.map { "\($0) is not registered for remote notifications.\n" }
                           ?? "No app is registered for remote notifications.\n")
        }
        let header = ["APP", "STATUS", "ENDPOINT"]
        let rows = registrations.map { entry in
            [entry["app"]?.stringValue ?? "?", entry["status"]?.stringValue ?? "?", entry["endpoint"]?.stringValue ?? "-"]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).enumerated().map { column, cell in
                column == cells.count - 1 ? cell.0 : cell.0.rightPadded(to: cell.1 + 2)
            }.joined()
        }
        text += terminal.bold(line(header)) + "\n" + rows.map { line($0) + "\n" }.joined()
        text += "\(registrations.count) registration\(registrations.count == 1 ? "" : "s").\n"
        return text
    }

    /// The answer of `push.list` (every app's) as `tidings push status` says it.
    func status(_ answer: JSON) -> String {
        let count = answer["registrations"]?.arrayValue?.count ?? 0
        let apps = count == 0 ? "No app is registered for remote notifications."
            : "\(count) app\(count == 1 ? " is" : "s are") registered for remote notifications (tidings push list)."
        var text = distributorLine(answer) + "\n"
        let status = answer["status"]?.stringValue ?? ""
        if answer["distributor"]?.stringValue == nil || status == "noDistributor" || status == "noFrontEnd" {
            text += advice(status, message: answer["message"]?.stringValue) + "\n"
        }
        return text + apps + "\n"
    }

    /// The first line of `list` and `status`: the distributor, or that there is none.
    private func distributorLine(_ answer: JSON) -> String {
        let status = answer["status"]?.stringValue ?? ""
        if let distributor = answer["distributor"]?.stringValue, status != "noDistributor", status != "noFrontEnd" {
            return "Distributor: " + terminal.bold(distributor) + " (tidings desktop registers the apps with it)"
        }
        switch status {
        case "noFrontEnd": return "Distributor: " + terminal.yellow("unknown") + ": no tidings desktop has reported"
        default: return "Distributor: " + terminal.yellow("none") + " on the session bus"
        }
    }

    /// A registration's status in words.
    private func statusWords(_ status: String, distributor: String?) -> String {
        switch status {
        case "registered": terminal.green("registered") + (distributor.map { " with \($0)" } ?? "")
        case "pending": terminal.yellow("pending") + ": tidings desktop is registering it" + (distributor.map { " with \($0)" } ?? "")
        case "noDistributor": terminal.yellow("registered, with no distributor") + ": no endpoint until one is installed"
        case "noFrontEnd": terminal.yellow("registered, with no front end") + ": no endpoint until tidings desktop runs"
        default: status
        }
    }

    /// What to do about `status`: the server's message, else the command line's own.
    private func advice(_ status: String, message: String?) -> String {
        if let message, !message.isEmpty { return message }
        switch status {
        case "pending":
            return "The endpoint comes once the distributor answers; tidings push list shows it."
        case "noFrontEnd":
            return "Start tidings desktop (systemctl --user start tidings-desktop): it is the UnifiedPush connector that registers apps and receives their pushes."
        default:
            return "Install a UnifiedPush distributor and run it in the session: \(Self.distributors)."
        }
    }

    /// The Web Push subscription of a registration: `{"endpoint", "keys": {"p256dh", "auth"}}`.
    private func subscription(_ registration: JSON) -> JSON {
        .object([("endpoint", registration["endpoint"] ?? .null),
                 ("keys", .object([("p256dh", registration["publicKey"] ?? .null), ("auth", registration["auth"] ?? .null)]))])
    }
}
