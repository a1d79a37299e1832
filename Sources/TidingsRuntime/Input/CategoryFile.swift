import TidingsBase
import TidingsProtocol

/// An app's registered categories, as a JSON file states them (what an iOS
/// app passes to `setNotificationCategories`):
///
///     {"app": "com.example.events",
///      "categories": [{"identifier": "event-invite", "options": ["customDismissAction"],
///                      "actions": [{"identifier": "accept", "title": "Accept"},
///                                  {"identifier": "comment", "title": "Comment",
///                                   "textInput": {"buttonTitle": "Send", "placeholder": "Say something"}}]}]}
package struct CategoryFile: Sendable {
    /// The app the categories belong to.
    package var app: String
    package var categories: [NotificationCategory]

    /// The outcome of reading: the file, and diagnostics either way.
    package struct Reading: Sendable {
        package var file: CategoryFile?
        package var diagnostics: [Diagnostic]
    }

    /// Reads a category file's JSON.
    package static func read(_ json: JSON, file: String? = nil) -> Reading {
        var fields = JSONFieldReader(file: file, invalidCode: .categoriesInvalid, unknownMemberCode: .categoriesUnknownKey)
        guard let members = fields.object(json, at: []) else {
            return Reading(file: nil, diagnostics: fields.diagnostics)
        }
        fields.checkMembers(members, allowed: ["app", "categories"], at: [])
        let app = fields.string(json["app"], at: ["app"]) ?? ""
        if app.isEmpty {
            fields.report(.error, .categoriesInvalid, "A category file must name its \"app\" (a bundle identifier).", at: ["app"])
        }
        var categories: [NotificationCategory] = []
        var seen: Set<String> = []
        for (position, element) in (fields.array(json["categories"], at: ["categories"]) ?? []).enumerated() {
            guard let category = NotificationCategory.read(element, at: ["categories", "\(position)"], into: &fields)
            else { continue }
            if seen.insert(category.identifier).inserted {
                categories.append(category)
            } else {
                fields.report(.error, .categoriesInvalid, "The category \"\(category.identifier)\" is defined twice.",
                              at: ["categories", "\(position)", "identifier"])
            }
        }
        let result = fields.failed ? nil : CategoryFile(app: app, categories: categories)
        return Reading(file: result, diagnostics: fields.diagnostics)
    }
}
