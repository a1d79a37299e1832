import TidingsBase
import TidingsManifest
import TidingsRegistry

/// `tidings list` as a table, then the problems of each bundle, then what
/// a worker's sandbox holds on this machine.
struct ListText {
    let report: ListReport
    let terminal: Terminal

    private var index: ExtensionIndex { report.index }
    /// Where each bundle runs and its faults, by bundle path.
    private var isolation: [String: BundleIsolation] { report.isolation }

    func render() -> String {
        var text = terminal.bold("Search path") + " (\(origin)):\n"
        for directory in index.searchPath.directories {
            let present = FileSystem.isDirectory(directory)
            text += "  \(directory)" + (present ? "" : terminal.dim("  (absent)")) + "\n"
        }
        guard !index.bundles.isEmpty else {
            return text + "\nNo extension bundles found. Install one with: tidings install MANIFEST LIBRARY\n"
        }
        let header = ["BUNDLE", "POINT", "APP", "CATEGORIES", "FLAGS", "RATIO", "RUNS", "STATUS"]
        let rows = index.bundles.map(row)
        let widths = header.indices.map { column in ([header] + rows.map(\.cells)).map { $0[column].count }.max()! }
        func line(_ cells: [String], status: String? = nil) -> String {
            var output = "  "
            for (column, cell) in cells.enumerated() {
                let shown = column == cells.count - 1 ? (status ?? cell) : cell
                output += shown + (column == cells.count - 1 ? "" : String(repeating: " ", count: widths[column] - cell.count + 2))
            }
            return output + "\n"
        }
        text += "\n" + terminal.bold(line(header).dropLast().description) + "\n"
        for row in rows { text += line(row.cells, status: row.styledStatus) }
        let troubled = index.bundles.filter { !$0.diagnostics.isEmpty || lastFault(of: $0) != nil }
        if !troubled.isEmpty || !index.diagnostics.isEmpty {
            text += "\n" + terminal.bold("Problems") + "\n"
            for diagnostic in index.diagnostics { text += "  " + terminal.line(for: diagnostic) + "\n" }
            for bundle in troubled {
                text += "  \(bundle.name)\n"
                for diagnostic in bundle.diagnostics { text += "    " + terminal.line(for: diagnostic) + "\n" }
                if let fault = lastFault(of: bundle) { text += "    " + terminal.line(for: fault) + "\n" }
            }
        }
        if let damage = report.ledgerDamage {
            text += "\n" + terminal.bold("Fault ledger") + "\n  " + terminal.red("damaged") + ": \(damage); every bundle "
                + "that runs in a worker stays quarantined until it is repaired or removed.\n"
        }
        if !report.sandbox.isEmpty {
            text += "\n" + terminal.bold("Sandbox") + " (each worker's, on this machine)\n"
            let width = report.sandbox.map(\.name.count).max() ?? 0
            for layer in report.sandbox {
                let status = switch layer.status {
                case .active: terminal.green("active  ")
                case .weakened: terminal.yellow("weakened")
                case .missing: terminal.red("missing ")
                }
                text += "  \(layer.name.rightPadded(to: width))  \(status)  \(layer.detail)\n"
            }
        }
        return text
    }

    /// The bundle's last fault, as a diagnostic with its date, when the ledger has one.
    private func lastFault(of bundle: ExtensionBundle) -> Diagnostic? {
        guard let entry = isolation[bundle.path], let record = entry.faults?.faults.last else { return nil }
        let message = "last fault (\(record.kind)) at \(ISO8601.format(record.time)): \(record.message)"
        let code = Diagnostic.Code("worker.\(record.kind)")
        return entry.isQuarantined ? .error(code, message) : .warning(code, message)
    }

    private var origin: String {
        switch index.searchPath.origin {
        case .option: "--extensions"
        case .environment: "TIDINGS_EXTENSIONS_PATH"
        case .xdg: "XDG data directories"
        }
    }

    private func row(_ bundle: ExtensionBundle) -> (cells: [String], styledStatus: String) {
        let errors = bundle.diagnostics.filter { $0.severity == .error }.count
        let warnings = bundle.diagnostics.filter { $0.severity == .warning }.count
        let status: String
        let styled: String
        let runs = isolation[bundle.path]
        if let runs, runs.isQuarantined {
            status = "quarantined"
            styled = terminal.red(status)
        } else if let faults = runs?.recentFaults.count, faults > 0 {
            status = faults == 1 ? "1 fault in the last hour" : "\(faults) faults in the last hour"
            styled = terminal.yellow(status)
        } else if errors > 0 {
            status = errors == 1 ? "1 error" : "\(errors) errors"
            styled = terminal.red(status)
        } else if warnings > 0 {
            status = warnings == 1 ? "1 warning" : "\(warnings) warnings"
            styled = terminal.yellow(status)
        } else {
            status = "ok"
            styled = terminal.green(status)
        }
        guard let manifest = bundle.manifest else {
            return ([bundle.name, "-", "-", "-", "-", "-", "-", status], styled)
        }
        var flags: [String] = []
        if manifest.defaultContentHidden { flags.append("hidden") }
        if manifest.overridesDefaultTitle { flags.append("title") }
        if manifest.userInteractionEnabled { flags.append("touch") }
        if bundle.interface != nil { flags.append("view") }
        let ratio = manifest.initialContentSizeRatio.map { NumberText.short($0) } ?? "-"
        let categories = manifest.categories.isEmpty ? "(all)" : manifest.categories.joined(separator: ",")
        return ([bundle.name, manifest.point.shortName, manifest.appIdentifier, categories,
                 flags.isEmpty ? "-" : flags.joined(separator: ","), ratio, runs?.mode.rawValue ?? "-", status], styled)
    }
}
