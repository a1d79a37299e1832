import TidingsBase

/// The checks of each bundle, as a table for people or JSON for programs.
struct ValidationReport {
    var bundles: [(path: String, checks: [ValidationCheck])]
    var seed: UInt64
    /// `--strict`: a warning fails too.
    var strict = false

    /// True when any check of any bundle failed (or, when strict, warned).
    var failed: Bool {
        bundles.contains { $0.checks.contains { $0.verdict == .fail || (strict && $0.verdict == .warn) } }
    }

    func text(terminal: Terminal) -> String {
        var text = ""
        for (path, checks) in bundles {
            text += terminal.bold(path) + "\n"
            let width = ValidationCheck.Name.allCases.map(\.rawValue.count).max()! + 2
            for check in checks {
                let verdict = switch check.verdict {
                case .pass: terminal.green("pass")
                case .warn: strict ? terminal.red("FAIL") : terminal.yellow("warn")
                case .fail: terminal.red("FAIL")
                case .skip: terminal.dim("skip")
                }
                text += "  \(verdict)  \(check.name.rawValue.rightPadded(to: width))\(check.detail)\n"
                if check.verdict == .fail || check.verdict == .warn {
                    for problem in check.problems.prefix(5) where problem.severity != .note {
                        text += "          " + terminal.line(for: problem) + "\n"
                    }
                }
            }
            let counts = ValidationCheck.Verdict.allCases.map { verdict in (verdict, checks.filter { $0.verdict == verdict }.count) }
            text += "  " + counts.filter { $0.1 > 0 }.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ") + "\n\n"
        }
        text += "Seed \(seed) (--seed \(seed) repeats the random notifications).\n"
        return text
    }

    var json: JSON {
        .object([
            ("seed", .integer(Int64(bitPattern: seed))), ("passed", .bool(!failed)), ("strict", .bool(strict)),
            ("bundles", .array(bundles.map { bundle in
                .object([("bundle", .string(bundle.path)), ("checks", .array(bundle.checks.map(\.json)))])
            })),
        ])
    }
}


