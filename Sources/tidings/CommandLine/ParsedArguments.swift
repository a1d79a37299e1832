import TidingsBase

/// A command line split by a command's spec into positionals and options.
struct ParsedArguments {
    var positionals: [String] = []
    private var values: [String: [String]] = [:]
    /// Every option with a value, in the order given.
    private var given: [(name: String, value: String)] = []

    /// Parses `arguments` (after the command name). `--name=value` and
    /// `--name value` both work; `--` ends the options.
    init(_ arguments: [String], spec: CommandSpec) throws(CommandFailure) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" {
                positionals += rest
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument.hasPrefix("-") && argument.count > 1 {
                    throw .usage("Unknown option \(argument); options are spelled --name (see tidings \(spec.name) --help).")
                }
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if name == "help" {
                values["help"] = [""]
                continue
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                let hint = Suggestion.closest(to: name, among: spec.options.map(\.name)).map { "; did you mean --\($0)?" }
                    ?? " (see tidings \(spec.name) --help)."
                throw .usage("tidings \(spec.name) has no option --\(name)\(hint)")
            }
            if option.value == nil {
                guard inline == nil else { throw .usage("--\(name) takes no value.") }
                values[name, default: []].append("")
                continue
            }
            guard let value = inline ?? rest.popFirst() else {
                throw .usage("--\(name) needs a value (\(option.value!)).")
            }
            if !option.repeatable && values[name] != nil {
                throw .usage("--\(name) is given twice.")
            }
            values[name, default: []].append(value)
            given.append((name, value))
        }
    }

    /// The values of the options `names`, in the order they were given.
    func inOrder(_ names: Set<String>) -> [(name: String, value: String)] {
        given.filter { names.contains($0.name) }
    }

    /// True when the flag was given.
    func flag(_ name: String) -> Bool { values[name] != nil }

    /// The option's value, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    func values(_ name: String) -> [String] { values[name] ?? [] }

    /// The option's value as a positive finite number, if given.
    func positiveNumber(_ name: String) throws(CommandFailure) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite, number > 0 else {
            throw .usage("--\(name) must be a number greater than 0; it is \"\(text)\".")
        }
        return number
    }

    /// `--name` as a whole number, 0 or more (0 turns something off), at
    /// most `ceiling`; nil when not given.
    func count(_ name: String, atMost ceiling: Int) throws(CommandFailure) -> Int? {
        value(name) == "0" ? 0 : try wholeNumber(name, atMost: ceiling)
    }

    /// `--name` as a whole number greater than 0, at most `ceiling`; nil when not given.
    func wholeNumber(_ name: String, atMost ceiling: Int = Int(Int32.max)) throws(CommandFailure) -> Int? {
        guard let number = try positiveNumber(name) else { return nil }
        guard number.rounded() == number else {
            throw .usage("--\(name) must be a whole number; it is \(NumberText.short(number)).")
        }
        return Int(min(number, Double(ceiling)))
    }
}
