import Glibc
import TidingsABI
import TidingsBase

/// What a service extension handed to its content handler, copied out of the
/// ABI's `tidings_content`: the rewritten content, its attachments named by
/// identifier (resolved against what the request had and what the extension
/// created), and what was wrong with it.
package struct ServiceAnswer: Sendable, Equatable {
    /// The content, without attachments.
    package var content: NotificationContent
    /// The identifiers of the attachments, in order.
    package var attachmentIdentifiers: [String]
    /// Problems in the answer (a userInfo value that is not JSON), each dropped.
    package var problems: [Diagnostic]

    package init(content: NotificationContent, attachmentIdentifiers: [String], problems: [Diagnostic] = []) {
        self.content = content
        self.attachmentIdentifiers = attachmentIdentifiers
        self.problems = problems
    }

    /// Copies a `tidings_content` an extension passed to `complete_request`.
    init(_ pointer: UnsafePointer<tidings_content>) {
        let given = pointer.pointee
        var content = NotificationContent()
        var problems: [Diagnostic] = []
        func text(_ pointer: UnsafePointer<CChar>?) -> String? {
            pointer.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
        }
        guard Int(given.struct_size) >= MemoryLayout<tidings_content>.size else {
            self.init(content: content, attachmentIdentifiers: [], problems: [.warning(
                .serviceAnswerInvalid, "The content handed back is smaller than version 1's tidings_content; it was ignored.")])
            return
        }
        content.title = text(given.title) ?? ""
        content.subtitle = text(given.subtitle) ?? ""
        content.body = text(given.body) ?? ""
        content.categoryIdentifier = text(given.category_identifier) ?? ""
        content.threadIdentifier = text(given.thread_identifier) ?? ""
        content.targetContentIdentifier = text(given.target_content_identifier)
        content.sound = text(given.sound)
        content.badge = given.badge == Int64(TIDINGS_BADGE_NONE) ? nil : given.badge
        content.interruptionLevel = InterruptionLevel(rawValue: given.interruption_level) ?? .active
        content.relevanceScore = given.relevance_score.isFinite ? min(1, max(0, given.relevance_score)) : 0
        for position in 0..<(given.user_info == nil ? 0 : given.user_info_count) {
            guard let entry = given.user_info![position]?.pointee, let key = text(entry.key) else { continue }
            do {
                content.userInfo.append((key, try JSON.parse(Array((text(entry.json) ?? "").utf8))))
            } catch {
                problems.append(.warning(.serviceAnswerInvalid,
                                         "The userInfo value of \"\(key)\" handed back is not JSON (\(error.message)); it was dropped."))
            }
        }
        let identifiers = (0..<(given.attachments == nil ? 0 : given.attachment_count)).compactMap { position in
            given.attachments![position].flatMap { text($0.pointee.identifier) }
        }
        self.init(content: content, attachmentIdentifiers: identifiers, problems: problems)
    }
}

extension Diagnostic.Code {
    /// The content a service extension handed back is malformed in part.
    package static let serviceAnswerInvalid = Self("service.invalid-content")
}
