import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// Names the cause of `view.no-such-element`, the commonest being an element
/// of the interface file that lost its `id`: the file, each element without
/// one (by position, kind and text), and the fix.
enum LostIdentifiers {
    /// `checks` with each `view.no-such-element` problem explained against `bundle`'s interface file.
    static func explain(_ checks: [ValidationCheck], bundle: ExtensionBundle) -> [ValidationCheck] {
        guard let name = bundle.manifest?.interfaceName else { return checks }
        let file = Path.join(bundle.path, BundleReader.interfaceFileName(for: name))
        let nodes = ViewState(interface: bundle.interface).nodes
        // Elements without an identifier that an extension could mean to change (a stack holds others).
        let unnamed = nodes.enumerated().filter { $0.element.identifier == nil && $0.element.kindName != "stack" }
        let paths = keyPaths(of: nodes)
        return checks.map { check in
            var check = check
            check.problems = check.problems.map { problem in
                guard problem.code == .viewNoSuchElement, let element = named(in: problem.message) else { return problem }
                var message = problem.message + " \(Path.lastComponent(of: file)) has no element with \"id\": \"\(element)\""
                if unnamed.isEmpty {
                    message += "; add one, or change the identifier the extension uses."
                } else {
                    let described = unnamed.prefix(3).map { position, node in "\(paths[position] ?? "element \(position)") (\(describe(node)))" }
                    message += "; its element\(unnamed.count == 1 ? "" : "s") without an id: " + described.joined(separator: ", ")
                        + (unnamed.count > 3 ? " and \(unnamed.count - 3) more" : "")
                        + ". Did one lose its id? Add \"id\": \"\(element)\" to it."
                }
                return Diagnostic(problem.severity, problem.code, message,
                                  at: .init(file: file, path: unnamed.count == 1 ? paths[unnamed[0].offset] : nil))
            }
            if check.verdict != .pass, let first = check.problems.first(where: { $0.severity == (check.verdict == .fail ? .error : .warning) }) {
                check.detail = first.message
            }
            return check
        }
    }

    /// Each element's key path in the interface file: root, root.children.0, …
    private static func keyPaths(of nodes: [ViewState.Node]) -> [Int: String] {
        guard !nodes.isEmpty else { return [:] }
        var paths = [0: "root"]
        for (position, node) in nodes.enumerated() {
            guard case .stack(_, _, let children) = node.content, let path = paths[position] else { continue }
            for (number, child) in children.enumerated() { paths[child] = "\(path).children.\(number)" }
        }
        return paths
    }

    /// The element identifier a `view.no-such-element` message names.
    private static func named(in message: String) -> String? {
        guard let start = message.firstRange(of: "no element \"")?.upperBound,
              let end = message[start...].firstIndex(of: "\"") else { return nil }
        return String(message[start..<end])
    }

    /// "a label, text "Hello"" for an element.
    private static func describe(_ node: ViewState.Node) -> String {
        switch node.content {
        case .label(let text, _, _): "a label" + (text.isEmpty ? "" : ", text \"\(text.prefix(40))\"")
        case .button(let title, _): "a button" + (title.isEmpty ? "" : ", title \"\(title.prefix(40))\"")
        case .textField(_, let placeholder, _): "a textField" + (placeholder.isEmpty ? "" : ", placeholder \"\(placeholder.prefix(40))\"")
        case .image: "an image"
        case .stack: "a stack"
        }
    }
}
