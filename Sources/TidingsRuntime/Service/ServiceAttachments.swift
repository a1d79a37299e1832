import TidingsBase

/// How a service extension's `create_attachment` reaches the host's store:
/// files are moved in, as iOS does; without a store, creating one fails with
/// Apple's 104. In a worker process, the file goes to the host instead
/// (`relay`), as an open descriptor.
package struct ServiceAttachments: Sendable {
    /// The host's store, if it keeps one.
    let store: AttachmentStore?
    /// In a worker: sends the request to the host and returns its answer.
    private let relay: (@Sendable (AttachmentRequest) -> Result<AttachmentStore.Admission, AttachmentFailure>)?

    /// Attachments kept in `store`.
    package init(store: AttachmentStore?) {
        self.store = store
        relay = nil
    }

    /// Attachments a worker process hands to its host through `relay`.
    package init(relay: @escaping @Sendable (AttachmentRequest) -> Result<AttachmentStore.Admission, AttachmentFailure>) {
        store = nil
        self.relay = relay
    }

    /// Checks the file `request` names and moves it into the store.
    func create(_ request: AttachmentRequest) -> Result<AttachmentStore.Admission, AttachmentFailure> {
        if let relay { return relay(request) }
        guard let store else { return .failure(Self.noStore(for: request)) }
        return store.admit(request, as: .move)
    }

    /// Checks the file a worker process opened for `request` and copies it
    /// into the store (the worker then removes it from its place).
    func create(_ request: AttachmentRequest, from file: borrowing FileDescriptor)
        -> Result<AttachmentStore.Admission, AttachmentFailure>
    {
        guard let store else { return .failure(Self.noStore(for: request)) }
        return store.admit(request, from: file)
    }

    /// Takes back an attachment made for a request that ended meanwhile.
    func takeBack(_ admission: AttachmentStore.Admission) {
        store?.takeBack(admission)
    }

    /// Apple's 104, for a host without a store.
    private static func noStore(for request: AttachmentRequest) -> AttachmentFailure {
        AttachmentFailure(
            .moveIntoDataStoreFailed,
            "The host keeps no attachment store (neither XDG_STATE_HOME nor HOME is set), so \(request.url) cannot be attached",
            request: request)
    }
}
