/// How a service extension's `create_attachment` reaches the host's store:
/// files are moved in, as iOS does; without a store, creating one fails with
/// Apple's 104.
package struct ServiceAttachments: Sendable {
    /// The host's store, if it keeps one.
    let store: AttachmentStore?

    /// Checks the file `request` names and moves it into the store.
    func create(_ request: AttachmentRequest) -> Result<AttachmentStore.Admission, AttachmentFailure> {
        guard let store else {
            return .failure(AttachmentFailure(
                .moveIntoDataStoreFailed,
                "The host keeps no attachment store (neither XDG_STATE_HOME nor HOME is set), so \(request.url) cannot be attached",
                request: request))
        }
        return store.admit(request, as: .move)
    }

    /// Takes back an attachment made for a request that ended meanwhile.
    func takeBack(_ admission: AttachmentStore.Admission) {
        store?.takeBack(admission)
    }
}
