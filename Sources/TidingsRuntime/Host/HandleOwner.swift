import TidingsABI

/// Whoever issued the handles of one slot of the `HandleDirectory`: the
/// contexts its context handles name, and where the completions of its
/// tokens go. A host's `HostEndpoint` in the host; in a process that runs an
/// extension for a host elsewhere, that process's own, which relays
/// completions to its host.
package protocol HandleOwner: AnyObject, Sendable {
    /// The contexts its handles name.
    var contexts: ContextRegistry { get }

    /// Takes a completion call of `token` with `given`, made naming the
    /// context `context` (`complete_response_for`, `complete_request_for`)
    /// or none (`complete_response`, `complete_request`); the status the ABI answers.
    /// Thread: any.
    func complete(_ token: UInt64, with given: CompletionGiven, by context: UInt64?) -> tidings_status
}

/// What a completion call gave, before it is checked.
package enum CompletionGiven: Sendable, Equatable {
    /// `complete_response`'s option.
    case option(Int32)
    /// `complete_request`'s content; nil to show the original.
    indirect case content(ServiceAnswer?)

    /// The kind of completion this call completes.
    package var kind: PendingCompletion.Kind {
        switch self {
        case .option: .response
        case .content: .request
        }
    }
}
