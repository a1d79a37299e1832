/// Why the host refused an attachment, with Apple's UNErrorCode values.
public struct AttachmentError: Error, Sendable, Equatable {
    /// Apple's code: 100 invalid URL, 101 unrecognized type, 102 invalid file
    /// size, 103 not in data store, 104 move into data store failed,
    /// 105 corrupt; 0 when the host refused for another reason.
    public let code: Int32
    /// The host function's status (`TIDINGS_STATUS_…`).
    public let status: Int32
}
