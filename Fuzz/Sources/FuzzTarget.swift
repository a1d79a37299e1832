/// What can be fuzzed: each target is a reader of untrusted bytes, checked
/// for crashes (and, under AddressSanitizer, for memory errors) and for the
/// properties its documentation promises.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// `JSON.parse`, and what is written of what it read reads back the same.
    case json
    /// `PropertyList.decode` fed XML property lists, then manifest validation and the writers.
    case plistXML = "plist-xml"
    /// The same fed binary property lists.
    case plistBinary = "plist-binary"
    /// The same fed JSON property lists.
    case plistJSON = "plist-json"
    /// The payload and category-file decoders, and the C layout of what they decode.
    case payload
    /// JSON-RPC messages as the server reads them, and the answers it writes.
    case rpc
    /// `WorkerMessage(decoding:)`, the host's reader of what a worker sends.
    case workerMessage = "worker-message"
    /// The journal and snapshot framing, and `RecordStore.load` of a journal.
    case journal
    /// The server's methods that take numbers (`requests.add` first): what does not fit is refused, never trapped on.
    case numbers

    /// Runs this target's checks on one input.
    func check(_ bytes: [UInt8]) {
        switch self {
        case .json: JSONChecks.check(bytes)
        case .plistXML, .plistBinary, .plistJSON: PropertyListChecks.check(bytes)
        case .payload: PayloadChecks.check(bytes)
        case .rpc: RPCChecks.check(bytes)
        case .workerMessage: WorkerMessageChecks.check(bytes)
        case .journal: JournalChecks.check(bytes)
        case .numbers: NumberChecks.check(bytes)
        }
    }
}
