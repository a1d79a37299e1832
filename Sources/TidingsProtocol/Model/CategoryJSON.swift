import TidingsBase

extension NotificationCategory {
    /// The outcome of reading one category: the category, and what was wrong either way.
    package struct Reading: Sendable {
        /// The category; nil when the JSON is not one.
        package var category: NotificationCategory?
        /// What was wrong or unknown in it.
        package var diagnostics: [Diagnostic]
    }

    /// Reads one category as `categories.register` takes it and
    /// `categories.list` gives it (the form `json` writes).
    /// - Parameter path: where the category is in the document, for diagnostics.
    package static func read(_ json: JSON, at path: [String] = ["category"]) -> Reading {
        var fields = JSONFieldReader(file: nil, invalidCode: .categoriesInvalid, unknownMemberCode: .categoriesUnknownKey)
        let category = read(json, at: path, into: &fields)
        return Reading(category: fields.failed ? nil : category, diagnostics: fields.diagnostics)
    }

    /// Reads the category at `path`, reporting into `fields` (a category
    /// file's reader reads each of its categories so).
    package static func read(_ json: JSON, at path: [String], into fields: inout JSONFieldReader) -> NotificationCategory? {
        guard let members = fields.object(json, at: path) else { return nil }
        fields.checkMembers(members, allowed: ["identifier", "actions", "options", "intentIdentifiers",
                                               "hiddenPreviewsBodyPlaceholder", "categorySummaryFormat"], at: path)
        guard let identifier = nonEmpty(json["identifier"], at: path + ["identifier"], fields: &fields) else { return nil }
        var actions: [NotificationAction] = []
        for (position, element) in (fields.array(json["actions"], at: path + ["actions"]) ?? []).enumerated() {
            let actionPath = path + ["actions", "\(position)"]
            guard let action = action(element, at: actionPath, fields: &fields) else { continue }
            if actions.contains(where: { $0.identifier == action.identifier }) {
                fields.report(.error, .categoriesInvalid,
                              "The action \"\(action.identifier)\" appears twice in category \"\(identifier)\".",
                              at: actionPath + ["identifier"])
            } else if action.identifier == ActionIdentifier.default || action.identifier == ActionIdentifier.dismiss {
                fields.report(.error, .categoriesInvalid,
                              "\"\(action.identifier)\" is reserved for the system and cannot name an action.",
                              at: actionPath + ["identifier"])
            } else {
                actions.append(action)
            }
        }
        let options = optionSet(json["options"], names: NotificationCategory.Options.names, at: path + ["options"],
                                fields: &fields)
        if options.contains(.allowAnnouncement) {
            fields.report(.warning, .categoriesDeprecatedOption,
                          "\"allowAnnouncement\" is deprecated since iOS 15 (the user's announcement setting decides); it is accepted, as on iOS, and has no effect.",
                          at: path + ["options"])
        }
        let intents = (fields.array(json["intentIdentifiers"], at: path + ["intentIdentifiers"]) ?? []).enumerated()
            .compactMap { fields.string($1, at: path + ["intentIdentifiers", "\($0)"]) }
        let placeholder = fields.string(json["hiddenPreviewsBodyPlaceholder"], at: path + ["hiddenPreviewsBodyPlaceholder"])
        let summaryFormat = fields.string(json["categorySummaryFormat"], at: path + ["categorySummaryFormat"])
        return NotificationCategory(identifier: identifier, actions: actions, options: options,
                                    intentIdentifiers: intents, hiddenPreviewsBodyPlaceholder: placeholder,
                                    summaryFormat: summaryFormat)
    }

    private static func action(_ json: JSON, at path: [String], fields: inout JSONFieldReader) -> NotificationAction? {
        guard let members = fields.object(json, at: path) else { return nil }
        fields.checkMembers(members, allowed: ["identifier", "title", "options", "textInput", "icon"], at: path)
        guard let identifier = nonEmpty(json["identifier"], at: path + ["identifier"], fields: &fields) else { return nil }
        let title = fields.string(json["title"], at: path + ["title"]) ?? identifier
        let options = optionSet(json["options"], names: NotificationAction.Options.names, at: path + ["options"],
                                fields: &fields)
        var textInput: NotificationAction.TextInput?
        if let input = fields.object(json["textInput"], at: path + ["textInput"]) {
            fields.checkMembers(input, allowed: ["buttonTitle", "placeholder"], at: path + ["textInput"])
            let object = JSON.object(input)
            textInput = .init(buttonTitle: fields.string(object["buttonTitle"], at: path + ["textInput", "buttonTitle"]) ?? "Send",
                              placeholder: fields.string(object["placeholder"], at: path + ["textInput", "placeholder"]) ?? "")
        }
        let icon = json["icon"].flatMap { self.icon($0, at: path + ["icon"], fields: &fields) }
        return NotificationAction(identifier: identifier, title: title, options: options, textInput: textInput,
                                  icon: icon)
    }

    /// An action's icon: `{"systemImageName": NAME}` or `{"templateImageName": NAME}`.
    private static func icon(_ json: JSON, at path: [String], fields: inout JSONFieldReader) -> NotificationAction.Icon? {
        guard let members = fields.object(json, at: path) else { return nil }
        fields.checkMembers(members, allowed: ["systemImageName", "templateImageName"], at: path)
        guard members.count == 1 else {
            fields.report(.error, .categoriesInvalid,
                          "An action icon names one image: \"systemImageName\" or \"templateImageName\".", at: path)
            return nil
        }
        let key = members[0].0
        guard key == "systemImageName" || key == "templateImageName",
              let name = nonEmpty(json[key], at: path + [key], fields: &fields)
        else { return nil }
        return key == "systemImageName" ? .system(name) : .template(name)
    }

    private static func nonEmpty(_ value: JSON?, at path: [String], fields: inout JSONFieldReader) -> String? {
        if let value, value.stringValue == nil {
            return fields.string(value, at: path)  // reports the wrong type
        }
        guard let text = value?.stringValue, !text.isEmpty else {
            fields.report(.error, .categoriesInvalid, "\(fields.name(path)) must be a non-empty string.", at: path)
            return nil
        }
        return text
    }

    private static func optionSet<Options: OptionSet>(
        _ value: JSON?, names: [(String, Options)], at path: [String], fields: inout JSONFieldReader
    ) -> Options where Options.Element == Options {
        var options: Options = []
        for (position, element) in (fields.array(value, at: path) ?? []).enumerated() {
            guard let name = fields.string(element, at: path + ["\(position)"]) else { continue }
            if let option = names.first(where: { $0.0 == name })?.1 {
                options.insert(option)
            } else {
                let hint = Suggestion.closest(to: name, among: names.map(\.0)).map { "; did you mean \"\($0)\"?" }
                    ?? "; known options are \(names.map(\.0).joined(separator: ", "))."
                fields.report(.error, .categoriesInvalid, "\"\(name)\" is not an option here\(hint)", at: path + ["\(position)"])
            }
        }
        return options
    }
}

extension Diagnostic.Code {
    /// A category file member has the wrong type or value.
    package static let categoriesInvalid = Self("categories.invalid")
    /// A key the category file format does not define.
    package static let categoriesUnknownKey = Self("categories.unknown-key")
    /// A category option Apple has deprecated (allowAnnouncement): accepted, with no effect.
    package static let categoriesDeprecatedOption = Self("categories.deprecated-option")
}

extension NotificationCategory {
    /// The category as JSON, in the form a category file gives it.
    package var json: JSON {
        var members: [(String, JSON)] = [
            ("identifier", .string(identifier)),
            ("options", .array(Options.names.filter { options.contains($0.1) }.map { .string($0.0) })),
            ("actions", .array(actions.map(\.json))),
        ]
        if !intentIdentifiers.isEmpty { members.append(("intentIdentifiers", .array(intentIdentifiers.map(JSON.string)))) }
        if let placeholder = hiddenPreviewsBodyPlaceholder {
            members.append(("hiddenPreviewsBodyPlaceholder", .string(placeholder)))
        }
        if let summaryFormat { members.append(("categorySummaryFormat", .string(summaryFormat))) }
        return .object(members)
    }
}

extension NotificationAction {
    /// The action as JSON, with its option names and text-input details.
    package var json: JSON {
        var members: [(String, JSON)] = [
            ("identifier", .string(identifier)), ("title", .string(title)),
            ("options", .array(Options.names.filter { options.contains($0.1) }.map { .string($0.0) })),
        ]
        if let textInput {
            members.append(("textInput", .object([("buttonTitle", .string(textInput.buttonTitle)),
                                                  ("placeholder", .string(textInput.placeholder))])))
        }
        switch icon {
        case .system(let name)?: members.append(("icon", .object([("systemImageName", .string(name))])))
        case .template(let name)?: members.append(("icon", .object([("templateImageName", .string(name))])))
        case nil: break
        }
        return .object(members)
    }
}
