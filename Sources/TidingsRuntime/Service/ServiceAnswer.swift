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

    /// Copies a `tidings_content` an extension passed to `complete_request`,
    /// reading it, its userInfo entries and its attachments each within its
    /// `struct_size`; nil when the content, or an entry or attachment it
    /// points to (within the entries read; a NULL one is skipped), is
    /// smaller than version 1's: the
    /// call is refused, as every undersized struct an extension passes is.
    package init?(_ pointer: UnsafePointer<tidings_content>) {
        var content = NotificationContent()
        var problems: [Diagnostic] = []
        // Read at most the field's cap (invalid UTF-8 repaired, as Foundation's
        // NSString would); a longer field is dropped and reported.
        func text(_ pointer: UnsafePointer<CChar>?, limit: Int = HostLimits.identifierBytes,
                  _ field: String = "a field") -> String? {
            guard let pointer else { return nil }
            let length = strnlen(pointer, limit + 1)
            guard length <= limit else {
                problems.append(.warning(.serviceAnswerInvalid,
                                         "\(field) handed back is longer than \(limit) bytes; it was dropped."))
                return nil
            }
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        }
        guard let given = tidings_content.read(from: pointer) else { return nil }
        content.title = text(given.title, limit: HostLimits.titleBytes, "The title") ?? ""
        content.subtitle = text(given.subtitle, limit: HostLimits.titleBytes, "The subtitle") ?? ""
        content.body = text(given.body, limit: HostLimits.textBytes, "The body") ?? ""
        content.categoryIdentifier = text(given.category_identifier, "The category identifier") ?? ""
        content.threadIdentifier = text(given.thread_identifier, "The thread identifier") ?? ""
        content.targetContentIdentifier = text(given.target_content_identifier, "The target content identifier")
        content.sound = text(given.sound, limit: HostLimits.titleBytes, "The sound's name")
        content.badge = given.badge == Int64(TIDINGS_BADGE_NONE) ? nil : given.badge
        content.interruptionLevel = InterruptionLevel(rawValue: given.interruption_level) ?? .active
        content.relevanceScore = given.relevance_score.isFinite ? min(1, max(0, given.relevance_score)) : 0
        let entries = given.user_info == nil ? 0 : given.user_info_count
        if entries > HostLimits.entries {
            problems.append(.warning(.serviceAnswerInvalid,
                                     "The userInfo handed back has \(entries) entries; those after the first \(HostLimits.entries) were dropped."))
        }
        for position in 0..<min(entries, HostLimits.entries) {
            guard let pointer = given.user_info![position] else { continue }
            guard let entry = tidings_user_info_entry.read(from: pointer) else { return nil }
            guard let key = text(entry.key, "A userInfo key") else { continue }
            do {
                let json = text(entry.json, limit: HostLimits.userInfoValueBytes, "The userInfo value of \"\(key)\"") ?? ""
                content.userInfo.append((key, try JSON.parse(Array(json.utf8))))
            } catch {
                problems.append(.warning(.serviceAnswerInvalid,
                                         "The userInfo value of \"\(key)\" handed back is not JSON (\(error.message)); it was dropped."))
            }
        }
        let attachments = given.attachments == nil ? 0 : given.attachment_count
        var identifiers: [String] = []
        for position in 0..<min(attachments, HostLimits.entries) {
            guard let pointer = given.attachments![position] else { continue }
            guard let attachment = tidings_attachment.read(from: pointer) else { return nil }
            if let identifier = text(attachment.identifier, "An attachment identifier") { identifiers.append(identifier) }
        }
        self.init(content: content, attachmentIdentifiers: identifiers, problems: problems)
    }
}

extension Diagnostic.Code {
    /// The content a service extension handed back is malformed in part.
    package static let serviceAnswerInvalid = Self("service.invalid-content")
}
