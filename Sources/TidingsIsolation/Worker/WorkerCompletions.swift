import Synchronization
import TidingsABI
import TidingsBase
import TidingsRuntime

/// The completion functions of a worker's host table. The ABI's
/// `complete_response` and `complete_request` carry only a token, which
/// the host issued: they go to the worker's server (the one of this
/// process), which answers the extension as the host's center would and
/// sends the completion on to the host, which decides what it means.
enum WorkerCompletions {
    /// The host function table extensions get in a worker process.
    static let table = HostFunctions.makeTable(completeResponse: completeResponse, completeRequest: completeRequest)

    /// The server completions go to; set once the library is loaded.
    private static let server = Mutex<WorkerServer?>(nil)

    /// Sends completions to `server` from now on.
    static func send(to server: WorkerServer) {
        self.server.withLock { $0 = server }
    }

    private static let completeResponse: HostFunctions.CompleteResponse = { token, option in
        guard let server = server.withLock({ $0 }) else { return TIDINGS_STATUS_INVALID_COMPLETION }
        return server.complete(token, with: .option(option))
    }

    private static let completeRequest: HostFunctions.CompleteRequest = { token, content in
        guard let server = server.withLock({ $0 }) else { return TIDINGS_STATUS_INVALID_COMPLETION }
        return server.complete(token, with: .content(content.map(ServiceAnswer.init)))
    }
}

/// What a completion call gave.
enum CompletionGiven: Sendable {
    /// `complete_response`'s option.
    case option(Int32)
    /// `complete_request`'s content; nil for the original.
    case content(ServiceAnswer?)
}

/// The completion tokens the host sent this worker, with their deadlines,
/// so that `complete_response` and `complete_request` answer what the host's
/// center would: OK the first time, in time, for a token of the right kind;
/// INVALID_COMPLETION otherwise. Each call still goes to the host, which
/// decides and reports misuse.
final class RelayedCompletions: Sendable {
    /// How many tokens are remembered.
    private static let remembered = 4096

    private struct Open {
        var kind: PendingCompletion.Kind
        var deadline: UInt64
    }

    private struct Table {
        var open: [UInt64: Open] = [:]
        /// The tokens in the order they came, as a ring once full.
        var order: [UInt64] = []
        /// In a full ring, the slot of the oldest token: the next to forget.
        var oldest = 0
    }

    private let table = Mutex(Table())

    /// Notes that `token` awaits a completion of `kind` before `deadline` (monotonic nanoseconds).
    func expect(_ token: UInt64, kind: PendingCompletion.Kind, deadline: UInt64) {
        table.withLock { table in
            table.open[token] = Open(kind: kind, deadline: deadline)
            // A ring, not removeFirst(), which would move every token on each response.
            if table.order.count < Self.remembered {
                table.order.append(token)
            } else {
                table.open[table.order[table.oldest]] = nil
                table.order[table.oldest] = token
                table.oldest = (table.oldest + 1) % Self.remembered
            }
        }
    }

    /// The status a completion of `token` with `given` gets.
    func complete(_ token: UInt64, with given: CompletionGiven) -> tidings_status {
        let kind: PendingCompletion.Kind
        switch given {
        case .option: kind = .response
        case .content: kind = .request
        }
        let now = MonotonicClock.now()
        return table.withLock { table in
            guard let open = table.open[token], open.kind == kind else { return TIDINGS_STATUS_INVALID_COMPLETION }
            table.open[token] = nil
            return now <= open.deadline ? TIDINGS_STATUS_OK : TIDINGS_STATUS_INVALID_COMPLETION
        }
    }
}
