import TidingsABI
import TidingsBase

extension InstanceContext {
    /// What a `create_attachment` call came to.
    package enum AttachmentCreation: Sendable {
        /// The file entered the store and the instance's attachments.
        case made(AttachmentStore.Admission)
        /// The file was refused (Apple's code is in the failure); the
        /// diagnostic is recorded.
        case failed(AttachmentFailure)
        /// The call was refused before any file was looked at, with this status.
        case refused(tidings_status)

        /// The status `create_attachment` answers.
        package var status: tidings_status {
            switch self {
            case .made: TIDINGS_STATUS_OK
            case .failed: TIDINGS_STATUS_INVALID_ATTACHMENT
            case .refused(let status): status
            }
        }
    }

    /// `create_attachment` of an extension in this process: the file is
    /// checked and moved into the host's store.
    package func createAttachment(_ asked: Result<AttachmentRequest, RequestProblem>) -> AttachmentCreation {
        createAttachment(asked) { $0.create($1) }
    }

    /// `create_attachment` on this instance: checks `asked` (the request as
    /// read from C, or the sentence saying why it could not be) and reserves
    /// its identifier under the lock, has `make` check and store the file
    /// without the lock (it may take a while, and the instance's other host
    /// calls, and its end, need not wait), then records what was made, unless
    /// the instance ended meanwhile: then the file goes back.
    /// - Parameter make: puts the file into the store: from its path, or from
    ///   a descriptor opened elsewhere.
    package func createAttachment(
        _ asked: Result<AttachmentRequest, RequestProblem>,
        using make: (ServiceAttachments, AttachmentRequest) -> Result<AttachmentStore.Admission, AttachmentFailure>
    ) -> AttachmentCreation {
        // 1. Check the request and reserve its identifier, under the lock.
        var request: AttachmentRequest?
        let refusal: tidings_status? = update { state in
            guard !state.closed else { return TIDINGS_STATUS_INVALID_CONTEXT }
            guard attachments != nil else {
                return refuse(TIDINGS_STATUS_NOT_SUPPORTED, .attachmentNotSupported,
                              "created an attachment, which only a service extension may do.", in: &state)
            }
            switch asked {
            case .failure(let problem):
                return refuse(TIDINGS_STATUS_INVALID_ARGUMENT, .hostCallInvalidArgument, problem.message, in: &state)
            case .success(let made):
                if !made.identifier.isEmpty && (state.reservedIdentifiers.contains(made.identifier)
                    || state.attachments.contains { $0.identifier == made.identifier }) {
                    return refuse(TIDINGS_STATUS_INVALID_ARGUMENT, .hostCallInvalidArgument,
                                  "create_attachment was asked for the identifier \"\(made.identifier)\", which an attachment of the request already has.",
                                  in: &state)
                }
                if !made.identifier.isEmpty { state.reservedIdentifiers.insert(made.identifier) }
                request = made
                return nil
            }
        }
        if let refusal { return .refused(refusal) }
        guard let request, let attachments else { return .refused(TIDINGS_STATUS_INVALID_CONTEXT) }
        // 2. Check and store the file without the lock.
        let made = make(attachments, request)
        // 3. Record it, unless the instance ended meanwhile.
        var late: AttachmentStore.Admission?
        let creation: AttachmentCreation = update { state in
            state.reservedIdentifiers.remove(request.identifier)
            switch made {
            case .success(let admission):
                guard !state.closed else {
                    late = admission
                    return .refused(TIDINGS_STATUS_INVALID_CONTEXT)
                }
                state.attachments.append(admission.attachment)
                state.created.append(admission)
                return .made(admission)
            case .failure(let failure):
                if !state.closed {
                    state.diagnostics.append(failure.diagnostic)
                    if let abuse = failure.abuse { state.diagnostics.append(abuse) }
                }
                return .failed(failure)
            }
        }
        if let late { attachments.takeBack(late) }
        // A bundle that keeps passing the store's quota: a fault, where faults are counted.
        if case .failed(let failure) = creation, let abuse = failure.abuse { attachments.onAbuse(abuse) }
        return creation
    }

    /// Notes that the file of attachment `identifier`, which an extension run
    /// elsewhere handed over open, stayed in its place there (`reason`): it
    /// was copied, not moved, and what the request reports says so. False
    /// when no attachment of this instance's came that way under that name.
    package func leftInPlace(_ identifier: String, reason: String) -> Bool {
        update { state in
            guard let index = state.created.firstIndex(where: { $0.attachment.identifier == identifier }),
                  case .movedByCopy = state.created[index].transfer
            else { return false }
            state.created[index].transfer = .copiedInstead(
                reason: "\(reason), in the extension's worker process")
            return true
        }
    }

    /// Why a `tidings_attachment_request` could not be read: one sentence.
    package struct RequestProblem: Error, Sendable {
        /// The sentence, for the diagnostic.
        package let message: String

        package init(message: String) {
            self.message = message
        }
    }
}
