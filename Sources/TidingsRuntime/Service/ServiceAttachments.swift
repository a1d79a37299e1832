import TidingsBase

/// How a service extension's `create_attachment` reaches the host's store:
/// files are moved in, as iOS does; without a store, creating one fails with
/// Apple's 104. Its presence on an instance's context is what makes the
/// instance a service extension's, which alone may create attachments.
package struct ServiceAttachments: Sendable {
    /// The host's store, if it keeps one.
    let store: AttachmentStore?
    /// Whose the files are, for the store's quota: the notification, its app
    /// and the bundle; nil counts them for no one (the context of an
    /// extension run elsewhere, which never reaches a store itself).
    let owner: AttachmentStore.Owner?
    /// Told when the bundle keeps passing the store's quota
    /// (`AttachmentFailure.abuse`), to count it as a fault.
    let onAbuse: @Sendable (Diagnostic) -> Void

    /// Attachments kept in `store`, counted for `owner`; `onAbuse` hears of a
    /// bundle that keeps passing the quota.
    package init(store: AttachmentStore?, owner: AttachmentStore.Owner? = nil,
                 onAbuse: @escaping @Sendable (Diagnostic) -> Void = { _ in }) {
        self.store = store
        self.owner = owner
        self.onAbuse = onAbuse
    }

    /// Checks the file `request` names and moves it into the store.
    func create(_ request: AttachmentRequest) -> Result<AttachmentStore.Admission, AttachmentFailure> {
        guard let store else { return .failure(Self.noStore(for: request)) }
        return store.admit(request, as: .move, for: owner)
    }

    /// Checks `file`, a descriptor the caller opened for `request` (for an
    /// extension run elsewhere), and copies it into the store; `remover`
    /// says who then removes it from its place (`AttachmentStore.admit(_:opened:removedBy:for:)`).
    package func create(_ request: AttachmentRequest, opened file: borrowing FileDescriptor, removedBy remover: String)
        -> Result<AttachmentStore.Admission, AttachmentFailure>
    {
        guard let store else { return .failure(Self.noStore(for: request)) }
        return store.admit(request, opened: file, removedBy: remover, for: owner)
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
