import TidingsBase

/// One named check of `tidings validate` and how it went.
struct ValidationCheck {
    /// The checks, in the order they run and are listed.
    enum Name: String, CaseIterable {
        /// The manifest validates.
        case manifest
        /// The interface file (a content extension's) validates.
        case interface
        /// The library would link: ELF for this machine, the entry symbol, the libraries and symbols it needs.
        case library
        /// No other bundle beside it shares its identifier or claims one of its categories: which one serves, which is shadowed.
        case registry
        /// The categories of `--categories` files and `--payload` files are the manifest's, case included.
        case categories
        /// The entry function and its descriptor: negotiation, sizes per version, create.
        case load
        /// `didReceive` of varied notifications: every payload shape, Unicode, empty and long fields, many attachments.
        case notifications
        /// A thread-mate delivered again to the same extension.
        case thread
        /// Every element event and text input the interface allows: each button tapped, each text field submitted, each text input answered.
        case elements
        /// Every action of its categories, text input included, and the default and dismiss actions: the completion called once, in time, and the view after each.
        case responses
        /// A service extension's content handler within the deadline, and its time-will-expire.
        case service
        /// Nothing written to standard output or error.
        case output
        /// Time per call and the worker's memory.
        case cost

        /// What the check looks at, for the report.
        var summary: String {
            switch self {
            case .manifest: "the manifest validates"
            case .interface: "the interface file validates"
            case .library: "the library would link (entry symbol, needed libraries and symbols)"
            case .registry: "no other bundle beside it shares its identifier or claims its categories"
            case .categories: "the categories of --categories and --payload files are the manifest's, case included"
            case .load: "the entry negotiates a descriptor and create makes an instance"
            case .notifications: "didReceive of varied notifications"
            case .thread: "a thread-mate reaches the extension again"
            case .elements: "each button tapped, each text field submitted, each text input answered"
            case .responses: "each action answered once, in time"
            case .service: "the content handler within the deadline"
            case .output: "nothing written to standard output or error"
            case .cost: "time per call and the worker's memory"
            }
        }

        /// The checks whose failure keeps this one from running: with `--check`, a failed one is
        /// reported beside it (and fails the run), so that a skip never hides why.
        var prerequisites: [Name] {
            switch self {
            case .manifest, .interface, .library, .registry: []
            case .categories: [.manifest]
            case .load, .output, .cost: [.manifest, .library]
            case .notifications, .thread, .elements, .responses, .service: [.manifest, .library, .load]
            }
        }
    }

    /// How a check went.
    enum Verdict: String, Comparable, CaseIterable {
        case pass
        case skip
        case warn
        case fail

        private var rank: Int { [.pass: 0, .skip: 1, .warn: 2, .fail: 3][self]! }
        static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }
    }

    var name: Name
    var verdict: Verdict
    /// One line on what was found (the numbers, or why it was skipped).
    var detail: String
    /// The problems found, each with its code.
    var problems: [Diagnostic] = []

    /// The check from `problems`: failed by an error, warned by a warning, else passed with `detail`.
    static func judging(_ name: Name, _ problems: [Diagnostic], passing detail: String) -> ValidationCheck {
        let errors = problems.filter { $0.severity == .error }
        if let first = errors.first {
            return ValidationCheck(name: name, verdict: .fail, detail: first.message, problems: problems)
        }
        if let first = problems.first(where: { $0.severity == .warning }) {
            return ValidationCheck(name: name, verdict: .warn, detail: first.message, problems: problems)
        }
        return ValidationCheck(name: name, verdict: .pass, detail: detail, problems: problems)
    }

    /// Of `checks`, those `selected` names (all when nil) and each failed prerequisite of one of them, in order.
    static func selecting(_ selected: Set<Name>?, from checks: [ValidationCheck]) -> [ValidationCheck] {
        guard let selected else { return checks }
        let needed = Set(selected.flatMap(\.prerequisites))
        return checks.filter { selected.contains($0.name) || (needed.contains($0.name) && $0.verdict == .fail) }
    }

    /// The check's JSON for `--json`.
    var json: JSON {
        .object([("check", .string(name.rawValue)), ("verdict", .string(verdict.rawValue)), ("detail", .string(detail)),
                 ("problems", .array(problems.map(\.json)))])
    }
}
