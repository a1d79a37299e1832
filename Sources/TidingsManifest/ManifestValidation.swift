import TidingsBase

/// The outcome of validating a manifest: the manifest when there was no
/// error, and every diagnostic either way.
package struct ManifestValidation: Sendable {
    /// The manifest, or nil when any diagnostic is an error.
    package var manifest: Manifest?
    /// Every problem found, in the order of the keys.
    package var diagnostics: [Diagnostic]
}

extension Manifest {
    /// Decodes and validates manifest bytes in any of the three formats.
    package static func read(_ bytes: [UInt8], file: String? = nil) -> ManifestValidation {
        do {
            let document = try PropertyList.decode(bytes, file: file)
            var result = validate(document.value, file: file)
            result.diagnostics.insert(contentsOf: document.warnings, at: 0)
            return result
        } catch {
            return ManifestValidation(manifest: nil, diagnostics: [file.map(error.inFile) ?? error])
        }
    }

    /// Validates a decoded manifest against Apple's rules for notification
    /// extensions. Pure: no file is touched.
    package static func validate(_ plist: PropertyList, file: String? = nil) -> ManifestValidation {
        var validator = ManifestValidator(file: file)
        let manifest = validator.validate(plist)
        let failed = validator.diagnostics.containsError
        return ManifestValidation(manifest: failed ? nil : manifest, diagnostics: validator.diagnostics)
    }
}

extension Diagnostic.Code {
    /// The manifest's root is not a dictionary.
    package static let manifestNotDictionary = Self("manifest.not-a-dictionary")
    /// A key holds a value of the wrong type.
    package static let manifestWrongType = Self("manifest.wrong-type")
    /// `CFBundleIdentifier` is absent.
    package static let bundleIdentifierMissing = Self("manifest.bundle-identifier-missing")
    /// `CFBundleIdentifier` is not a reverse-DNS identifier with an app part.
    package static let bundleIdentifierInvalid = Self("manifest.bundle-identifier-invalid")
    /// `CFBundleExecutable` is absent.
    package static let executableMissing = Self("manifest.executable-missing")
    /// `CFBundleExecutable` is not a plain file name.
    package static let executableInvalid = Self("manifest.executable-invalid")
    /// `NSExtension` is absent.
    package static let extensionMissing = Self("manifest.extension-missing")
    /// `NSExtensionPointIdentifier` is absent.
    package static let extensionPointMissing = Self("manifest.extension-point-missing")
    /// `NSExtensionPointIdentifier` names no notification extension point.
    package static let extensionPointUnknown = Self("manifest.extension-point-unknown")
    /// `NSExtensionAttributes` is absent from a content extension.
    package static let attributesMissing = Self("manifest.attributes-missing")
    /// `UNNotificationExtensionCategory` is absent from a content extension.
    package static let categoryMissing = Self("manifest.category-missing")
    /// A category is an empty string, or the list is empty.
    package static let categoryEmpty = Self("manifest.category-empty")
    /// A category is not a string.
    package static let categoryInvalid = Self("manifest.category-invalid")
    /// A category is listed twice.
    package static let categoryDuplicate = Self("manifest.category-duplicate")
    /// A category has white space at an end (categories are matched exactly).
    package static let categoryWhitespace = Self("manifest.category-whitespace")
    /// `UNNotificationExtensionInitialContentSizeRatio` is absent from a content extension.
    package static let ratioMissing = Self("manifest.ratio-missing")
    /// The ratio is not a finite number greater than 0.
    package static let ratioInvalid = Self("manifest.ratio-invalid")
    /// A Boolean attribute holds something else.
    package static let booleanInvalid = Self("manifest.boolean-invalid")
    /// A Boolean attribute is written as a string ("YES"); accepted.
    package static let booleanAsString = Self("manifest.boolean-as-string")
    /// A value still holds an Xcode build variable such as `$(EXECUTABLE_NAME)`.
    package static let unresolvedVariable = Self("manifest.unresolved-variable")
    /// An unknown `UNNotificationExtension…` attribute, usually a misspelling.
    package static let unknownAttribute = Self("manifest.unknown-attribute")
    /// A known attribute outside `NSExtensionAttributes`, where it is ignored.
    package static let misplacedAttribute = Self("manifest.misplaced-attribute")
    /// An attribute that does not apply to this kind of extension.
    package static let attributeIgnored = Self("manifest.attribute-ignored")
    /// A service extension lists categories: a Tidings addition iOS does not have.
    package static let serviceCategoryFilter = Self("manifest.service-category-filter")
}

/// Walks a manifest once, collecting diagnostics.
private struct ManifestValidator {
    let file: String?
    var diagnostics: [Diagnostic] = []

    init(file: String?) { self.file = file }

    mutating func validate(_ plist: PropertyList) -> Manifest? {
        guard let root = plist.dictionaryEntries else {
            report(.error, .manifestNotDictionary,
                   "The manifest must be a dictionary; it is \(plist.typeDescription).", at: "")
            return nil
        }
        let lookup = Dictionary(root.map { ($0.0, $0.1) }, uniquingKeysWith: { _, last in last })
        let identifier = requiredString(lookup[ManifestKey.bundleIdentifier], at: ManifestKey.bundleIdentifier,
                                        missing: .bundleIdentifierMissing,
                                        "The manifest has no CFBundleIdentifier; add the extension's reverse-DNS identifier.")
        if let identifier { checkIdentifier(identifier) }
        let executable = requiredString(lookup[ManifestKey.executable], at: ManifestKey.executable,
                                        missing: .executableMissing,
                                        "The manifest has no CFBundleExecutable; name the shared library inside the bundle.")
        if let executable { checkExecutable(executable) }
        let displayName = optionalString(lookup[ManifestKey.displayName], at: ManifestKey.displayName)
            ?? optionalString(lookup[ManifestKey.bundleName], at: ManifestKey.bundleName)
        let version = optionalString(lookup[ManifestKey.shortVersion], at: ManifestKey.shortVersion)
        for key in ManifestKey.knownAttributes where lookup[key] != nil {
            report(.warning, .misplacedAttribute,
                   "\(key) is at the top level, where it is ignored; move it into NSExtension.NSExtensionAttributes.",
                   at: key)
        }
        reportVariables(in: plist, at: "")

        guard let extensionValue = lookup[ManifestKey.extension] else {
            report(.error, .extensionMissing,
                   "The manifest has no NSExtension dictionary, so it declares no extension point.", at: ManifestKey.extension)
            return nil
        }
        guard let extensionEntries = dictionary(extensionValue, at: ManifestKey.extension) else { return nil }
        let extensionLookup = Dictionary(extensionEntries.map { ($0.0, $0.1) }, uniquingKeysWith: { _, last in last })
        let point = extensionPoint(extensionLookup[ManifestKey.pointIdentifier])
        let interfaceName = optionalString(extensionLookup[ManifestKey.mainStoryboard],
                                           at: "\(ManifestKey.extension).\(ManifestKey.mainStoryboard)")
        for key in ManifestKey.knownAttributes where extensionLookup[key] != nil {
            report(.warning, .misplacedAttribute,
                   "\(key) is directly in NSExtension, where it is ignored; move it into NSExtension.NSExtensionAttributes.",
                   at: "\(ManifestKey.extension).\(key)")
        }

        let attributesPath = "\(ManifestKey.extension).\(ManifestKey.attributes)"
        var attributes: [String: PropertyList] = [:]
        if let value = extensionLookup[ManifestKey.attributes] {
            if let entries = dictionary(value, at: attributesPath) {
                attributes = Dictionary(entries.map { ($0.0, $0.1) }, uniquingKeysWith: { _, last in last })
                checkUnknownAttributes(entries.map(\.0))
            }
        } else if point == .content {
            report(.error, .attributesMissing,
                   "A content extension needs NSExtension.NSExtensionAttributes with its categories and size ratio.",
                   at: attributesPath)
        }

        let categories = self.categories(attributes[ManifestKey.category], required: point == .content)
        if point == .service && !categories.isEmpty {
            report(.note, .serviceCategoryFilter,
                   "UNNotificationExtensionCategory on a service extension is a Tidings addition: iOS ignores it and "
                       + "runs the app's service extension for all its mutable notifications; Tidings runs this one "
                       + "only for the categories listed.",
                   at: ManifestKey.attributePath(ManifestKey.category))
        }
        let ratio = self.ratio(attributes[ManifestKey.initialContentSizeRatio], point: point)
        let hidden = boolean(attributes[ManifestKey.defaultContentHidden], key: ManifestKey.defaultContentHidden)
        let overrides = boolean(attributes[ManifestKey.overridesDefaultTitle], key: ManifestKey.overridesDefaultTitle)
        let interaction = boolean(attributes[ManifestKey.userInteractionEnabled],
                                  key: ManifestKey.userInteractionEnabled)
        let sharedWorker = boolean(attributes[ManifestKey.sharedWorker], key: ManifestKey.sharedWorker)

        guard let identifier, let executable, let point else { return nil }
        return Manifest(
            bundleIdentifier: identifier, executable: executable, displayName: displayName, version: version,
            point: point, interfaceName: interfaceName, categories: categories, initialContentSizeRatio: ratio,
            defaultContentHidden: hidden, overridesDefaultTitle: overrides, userInteractionEnabled: interaction,
            sharedWorker: sharedWorker)
    }

    // MARK: Keys

    mutating func checkIdentifier(_ identifier: String) {
        // Letters, digits, '-' and '.', with no empty component: one pass over the bytes.
        var components = 1
        var componentIsEmpty = true
        var valid = true
        for byte in identifier.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                valid = valid && !componentIsEmpty
                components += 1
                componentIsEmpty = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                componentIsEmpty = false
            default:
                valid = false
            }
        }
        if !valid || componentIsEmpty {
            report(.error, .bundleIdentifierInvalid,
                   "CFBundleIdentifier \"\(identifier)\" may hold only letters, digits, '-' and '.', with no empty component.",
                   at: ManifestKey.bundleIdentifier)
        } else if components < 2 {
            report(.error, .bundleIdentifierInvalid,
                   "CFBundleIdentifier \"\(identifier)\" must extend its app's identifier (com.example.app.extension).",
                   at: ManifestKey.bundleIdentifier)
        }
    }

    mutating func checkExecutable(_ executable: String) {
        if executable.isEmpty || executable.contains("/") || executable == "." || executable == ".." {
            report(.error, .executableInvalid,
                   "CFBundleExecutable \"\(executable)\" must be a file name inside the bundle, without '/'.",
                   at: ManifestKey.executable)
        }
    }

    mutating func extensionPoint(_ value: PropertyList?) -> ExtensionPoint? {
        let path = "\(ManifestKey.extension).\(ManifestKey.pointIdentifier)"
        guard let text = requiredString(value, at: path, missing: .extensionPointMissing,
                                        "NSExtension has no NSExtensionPointIdentifier; use \(ExtensionPoint.content.rawValue).")
        else { return nil }
        if let point = ExtensionPoint(rawValue: text) { return point }
        var message = "NSExtensionPointIdentifier \"\(text)\" is not a notification extension point"
        if let near = Suggestion.closest(to: text, among: ExtensionPoint.allCases.map(\.rawValue), limit: 8) {
            message += "; did you mean \(near)?"
        } else {
            message += "; Tidings serves \(ExtensionPoint.content.rawValue) and \(ExtensionPoint.service.rawValue)."
        }
        report(.error, .extensionPointUnknown, message, at: path)
        return nil
    }

    mutating func checkUnknownAttributes(_ keys: [String]) {
        let known = ManifestKey.knownAttributes + ManifestKey.tidingsAttributes
        for key in keys where !known.contains(key) {
            let near = Suggestion.closest(to: key, among: known, limit: 6)
            guard key.hasPrefix("UNNotification") || key.hasPrefix("Tidings") || near != nil else { continue }
            let hint = near.map { "; did you mean \($0)?" } ?? "."
            report(.warning, .unknownAttribute,
                   "\(key) is not a notification extension attribute and is ignored\(hint)",
                   at: ManifestKey.attributePath(key))
        }
    }

    mutating func categories(_ value: PropertyList?, required: Bool) -> [String] {
        let path = ManifestKey.attributePath(ManifestKey.category)
        guard let value else {
            if required {
                report(.error, .categoryMissing,
                       "A content extension must declare UNNotificationExtensionCategory (a string or an array of strings).",
                       at: path)
            }
            return []
        }
        var found: [String] = []
        switch value {
        case .string(let category):
            accept(category, at: path, into: &found)
        case .array(let elements):
            if elements.isEmpty {
                report(.error, .categoryEmpty, "UNNotificationExtensionCategory is an empty array; list at least one category.",
                       at: path)
            }
            for (position, element) in elements.enumerated() {
                let elementPath = "\(path)[\(position)]"
                guard case .string(let category) = element else {
                    report(.error, .categoryInvalid,
                           "Each category must be a string; item \(position) is \(element.typeDescription).", at: elementPath)
                    continue
                }
                accept(category, at: elementPath, into: &found)
            }
        default:
            report(.error, .categoryInvalid,
                   "UNNotificationExtensionCategory must be a string or an array of strings; it is \(value.typeDescription).",
                   at: path)
        }
        return found
    }

    mutating func accept(_ category: String, at path: String, into found: inout [String]) {
        if category.isEmpty {
            report(.error, .categoryEmpty, "A category identifier is empty.", at: path)
        } else if containsVariable(category) {
            report(.error, .unresolvedVariable,
                   "The category \"\(category)\" is an Xcode build variable that was never replaced; write the category identifier.",
                   at: path)
        } else if found.contains(category) {
            report(.warning, .categoryDuplicate, "The category \"\(category)\" is listed twice.", at: path)
        } else {
            if category.first!.isWhitespace || category.last!.isWhitespace {
                report(.warning, .categoryWhitespace,
                       "The category \"\(category)\" has white space at an end, and categories are matched exactly.",
                       at: path)
            }
            found.append(category)
        }
    }

    mutating func ratio(_ value: PropertyList?, point: ExtensionPoint?) -> Double? {
        let path = ManifestKey.attributePath(ManifestKey.initialContentSizeRatio)
        guard let value else {
            if point == .content {
                report(.error, .ratioMissing,
                       "A content extension must set UNNotificationExtensionInitialContentSizeRatio (height ÷ width, such as 0.5).",
                       at: path)
            }
            return nil
        }
        if point == .service {
            report(.warning, .attributeIgnored,
                   "UNNotificationExtensionInitialContentSizeRatio applies only to content extensions and is ignored here.",
                   at: path)
            return nil
        }
        let number: Double
        switch value {
        case .real(let real): number = real
        case .integer(let integer): number = Double(integer)
        case .string(let text):
            report(.error, .ratioInvalid,
                   "UNNotificationExtensionInitialContentSizeRatio is the string \"\(text)\"; write it as a number (<real>\(text)</real>).",
                   at: path)
            return nil
        default:
            report(.error, .ratioInvalid,
                   "UNNotificationExtensionInitialContentSizeRatio must be a number; it is \(value.typeDescription).", at: path)
            return nil
        }
        guard number.isFinite, number > 0 else {
            report(.error, .ratioInvalid,
                   "UNNotificationExtensionInitialContentSizeRatio must be a finite number greater than 0; it is \(number).",
                   at: path)
            return nil
        }
        return number
    }

    mutating func boolean(_ value: PropertyList?, key: String) -> Bool {
        let path = ManifestKey.attributePath(key)
        switch value {
        case nil: return false
        case .bool(let flag): return flag
        case .string(let text):
            // As NSString's boolValue reads them, which is how iOS code often reads such values.
            let word = text.lowercased()
            let truthy = ["yes", "true", "1"].contains(word)
            if truthy || ["no", "false", "0"].contains(word) {
                report(.warning, .booleanAsString,
                       "\(key) is the string \"\(text)\"; it is read as \(truthy), but write <\(truthy)/>.", at: path)
                return truthy
            }
            fallthrough
        default:
            report(.error, .booleanInvalid,
                   "\(key) must be a Boolean (<true/> or <false/>); it is \(value!.typeDescription).", at: path)
            return false
        }
    }

    // MARK: Values

    mutating func requiredString(_ value: PropertyList?, at path: String, missing: Diagnostic.Code,
                                 _ missingMessage: String) -> String? {
        guard let value else {
            report(.error, missing, missingMessage, at: path)
            return nil
        }
        guard case .string(let text) = value else {
            report(.error, .manifestWrongType, "\(path) must be a string; it is \(value.typeDescription).", at: path)
            return nil
        }
        if containsVariable(text) {
            report(.error, .unresolvedVariable,
                   "\(path) is \"\(text)\", an Xcode build variable that was never replaced; write the real value.", at: path)
            return nil
        }
        if text.isEmpty {
            report(.error, missing, "\(path) is empty. " + missingMessage, at: path)
            return nil
        }
        return text
    }

    mutating func optionalString(_ value: PropertyList?, at path: String) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else {
            report(.warning, .manifestWrongType, "\(path) should be a string; it is \(value.typeDescription) and is ignored.",
                   at: path)
            return nil
        }
        return containsVariable(text) ? nil : text
    }

    mutating func dictionary(_ value: PropertyList, at path: String) -> [(String, PropertyList)]? {
        guard let entries = value.dictionaryEntries else {
            report(.error, .manifestWrongType, "\(path) must be a dictionary; it is \(value.typeDescription).", at: path)
            return nil
        }
        return entries
    }

    /// The key paths read as required strings, whose build variables are errors where they are read.
    static let requiredStringPaths: Set<String> = [
        ManifestKey.bundleIdentifier, ManifestKey.executable,
        "\(ManifestKey.extension).\(ManifestKey.pointIdentifier)", ManifestKey.attributePath(ManifestKey.category),
    ]

    /// Warns about build variables everywhere else.
    mutating func reportVariables(in value: PropertyList, at path: String) {
        switch value {
        case .string(let text) where containsVariable(text):
            report(.warning, .unresolvedVariable,
                   "\(path) is \"\(text)\", an Xcode build variable that was never replaced.", at: path)
        case .dictionary(let entries):
            for (key, child) in entries {
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                if !Self.requiredStringPaths.contains(childPath) { reportVariables(in: child, at: childPath) }
            }
        case .array(let elements):
            for (position, element) in elements.enumerated() {
                reportVariables(in: element, at: "\(path)[\(position)]")
            }
        default:
            break
        }
    }

    /// True when `text` holds `$(` or `${`, the start of an Xcode build
    /// variable. (A byte scan: `String.contains` costs about 45,000
    /// instructions per manifest here, a third of a one-shot delivery.)
    func containsVariable(_ text: String) -> Bool {
        var afterDollar = false
        for byte in text.utf8 {
            if afterDollar && (byte == UInt8(ascii: "(") || byte == UInt8(ascii: "{")) { return true }
            afterDollar = byte == UInt8(ascii: "$")
        }
        return false
    }

    mutating func report(_ severity: Diagnostic.Severity, _ code: Diagnostic.Code, _ message: String, at path: String) {
        diagnostics.append(Diagnostic(severity, code, message, at: .init(file: file, path: path)))
    }
}
