import TidingsBase

/// A place in a property list: the keys and array indices from the root, as
/// `tidings manifest` takes it — dotted (`NSExtension.NSExtensionAttributes`,
/// `UNNotificationExtensionCategory.0`) or, as PlistBuddy writes it, with
/// colons (`:NSExtension:NSExtensionAttributes`).
package struct PropertyListKeyPath: Sendable, Equatable, CustomStringConvertible {
    /// One step: a dictionary key, or a position in an array (a number).
    package enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// The steps, from the root.
    package var steps: [Step]

    /// The path `text` names; the empty path (`""` or `:`) is the root. In
    /// the dotted form a key containing a dot is written with `\.`; in either
    /// form, a step of digits is an array index where the value is an array.
    package init(_ text: String) {
        var steps: [String] = []
        if text.hasPrefix(":") {
            steps = text.dropFirst().split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        } else {
            var current = ""
            var escaped = false
            for character in text {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "." {
                    steps.append(current)
                    current = ""
                } else {
                    current.append(character)
                }
            }
            if !current.isEmpty || !steps.isEmpty { steps.append(current) }
        }
        self.steps = steps.map { step in Int(step).map(Step.index) ?? .key(step) }
    }

    /// The path of `steps`.
    package init(steps: [Step]) {
        self.steps = steps
    }

    /// The dotted form.
    package var description: String {
        steps.map { step in
            switch step {
            case .key(let key): key.replacing(".", with: "\\.")
            case .index(let index): String(index)
            }
        }.joined(separator: ".")
    }
}

/// Reading and changing one value of a property list, keeping every
/// dictionary's key order: a new key goes at the end of its dictionary, a
/// changed one stays where it was.
package enum PropertyListEditing {
    /// The value at `path`, or nil when there is none.
    package static func value(at path: PropertyListKeyPath, in root: PropertyList) -> PropertyList? {
        var current = root
        for step in path.steps {
            guard let next = child(of: current, at: step) else { return nil }
            current = next
        }
        return current
    }

    /// `root` with the value at `path` set to `value`: an existing one is
    /// replaced in place; a missing key is added at the end of its
    /// dictionary, which must exist.
    package static func setting(_ value: PropertyList, at path: PropertyListKeyPath,
                                in root: PropertyList) throws(Diagnostic) -> PropertyList {
        try changing(root, at: path, steps: path.steps[...]) { parent, last throws(Diagnostic) in
            switch (parent, last) {
            case (.dictionary(var entries), .key(let key)):
                if let position = entries.firstIndex(where: { $0.0 == key }) {
                    entries[position].1 = value
                } else {
                    entries.append((key, value))
                }
                return .dictionary(entries)
            case (.array(var elements), .index(let index)) where elements.indices.contains(index):
                elements[index] = value
                return .array(elements)
            case (.array(let elements), .index(let index)):
                throw .error(.editNoSuchValue, "\(path) has no element \(index): the array has \(elements.count) (use insert to add one).")
            default:
                throw mismatch(parent, last, path: path)
            }
        }
    }

    /// `root` with `value` inserted at `path`: before the element at an
    /// array index (an index equal to the count appends), or as a new key of
    /// a dictionary, which must not have it yet.
    package static func inserting(_ value: PropertyList, at path: PropertyListKeyPath,
                                  in root: PropertyList) throws(Diagnostic) -> PropertyList {
        try changing(root, at: path, steps: path.steps[...]) { parent, last throws(Diagnostic) in
            switch (parent, last) {
            case (.dictionary(var entries), .key(let key)):
                guard !entries.contains(where: { $0.0 == key }) else {
                    throw .error(.editExists, "\(path) exists already (use set to change it).")
                }
                entries.append((key, value))
                return .dictionary(entries)
            case (.array(var elements), .index(let index)) where (0...elements.count).contains(index):
                elements.insert(value, at: index)
                return .array(elements)
            case (.array(let elements), .index(let index)):
                throw .error(.editNoSuchValue, "\(path) cannot take an element at \(index): the array has \(elements.count).")
            default:
                throw mismatch(parent, last, path: path)
            }
        }
    }

    /// `root` without the value at `path`.
    package static func removing(at path: PropertyListKeyPath, in root: PropertyList) throws(Diagnostic) -> PropertyList {
        try changing(root, at: path, steps: path.steps[...]) { parent, last throws(Diagnostic) in
            switch (parent, last) {
            case (.dictionary(var entries), .key(let key)):
                guard let position = entries.firstIndex(where: { $0.0 == key }) else {
                    throw .error(.editNoSuchValue, "\(path) does not exist.")
                }
                entries.remove(at: position)
                return .dictionary(entries)
            case (.array(var elements), .index(let index)) where elements.indices.contains(index):
                elements.remove(at: index)
                return .array(elements)
            case (.array, .index):
                throw .error(.editNoSuchValue, "\(path) does not exist.")
            default:
                throw mismatch(parent, last, path: path)
            }
        }
    }

    // MARK: Steps

    /// `container` changed by `change` at the end of `steps`; the containers
    /// on the way are rebuilt around it, each in its place.
    private static func changing(
        _ container: PropertyList, at path: PropertyListKeyPath, steps: ArraySlice<PropertyListKeyPath.Step>,
        _ change: (PropertyList, PropertyListKeyPath.Step) throws(Diagnostic) -> PropertyList
    ) throws(Diagnostic) -> PropertyList {
        guard let given = steps.first else {
            throw .error(.editNoSuchValue, "The whole property list cannot be changed this way; name a key.")
        }
        // In a dictionary, a step of digits is a key like any other.
        let step: PropertyListKeyPath.Step = switch (container, given) {
        case (.dictionary, .index(let index)): .key(String(index))
        default: given
        }
        if steps.count == 1 { return try change(container, step) }
        guard let next = child(of: container, at: step) else {
            let reached = PropertyListKeyPath(steps: Array(path.steps[..<(path.steps.count - steps.count + 1)]))
            throw .error(.editNoSuchValue, "\(reached) does not exist, so \(path) cannot be reached.")
        }
        let changed = try changing(next, at: path, steps: steps.dropFirst(), change)
        switch (container, step) {
        case (.dictionary(var entries), .key(let key)):
            if let position = entries.firstIndex(where: { $0.0 == key }) { entries[position].1 = changed }
            return .dictionary(entries)
        case (.array(var elements), .index(let index)):
            elements[index] = changed
            return .array(elements)
        default:
            return container
        }
    }

    /// The value one step below `container`, if there is one.
    private static func child(of container: PropertyList, at step: PropertyListKeyPath.Step) -> PropertyList? {
        switch (container, step) {
        case (.dictionary(let entries), .key(let key)):
            return entries.first { $0.0 == key }?.1
        case (.dictionary(let entries), .index(let index)):
            // A key made of digits, in a dictionary.
            return entries.first { $0.0 == String(index) }?.1
        case (.array(let elements), .index(let index)):
            return elements.indices.contains(index) ? elements[index] : nil
        default:
            return nil
        }
    }

    /// The error for a step that does not fit its container.
    private static func mismatch(_ container: PropertyList, _ step: PropertyListKeyPath.Step,
                                 path: PropertyListKeyPath) -> Diagnostic {
        switch step {
        case .key(let key):
            .error(.editWrongContainer, "\(path): \"\(key)\" is a key, but its container is \(container.typeDescription).")
        case .index(let index):
            .error(.editWrongContainer, "\(path): \(index) is an array index, but its container is \(container.typeDescription).")
        }
    }
}

extension Diagnostic.Code {
    /// The key path names no value.
    package static let editNoSuchValue = Self("edit.no-such-value")
    /// An insert named a key that exists.
    package static let editExists = Self("edit.exists")
    /// A key path step does not fit the value it meets (a key in an array, say).
    package static let editWrongContainer = Self("edit.wrong-container")
}
