import TidingsBase
import TidingsManifest
import TidingsRegistry

/// `tidings list` as a table, then the problems of each bundle.
struct ListText {
    let index: ExtensionIndex
    let terminal: Terminal

    func render() -> String {
        var text = terminal.bold("Search path") + " (\(origin)):\n"
        for directory in index.searchPath.directories {
            let present = FileSystem.isDirectory(directory)
            text += "  \(directory)" + (present ? "" : terminal.dim("  (absent)")) + "\n"
        }
        guard !index.bundles.isEmpty else {
            return text + "\nNo extension bundles found. Install one with: tidings install MANIFEST LIBRARY\n"
        }
        let header = ["BUNDLE", "POINT", "APP", "CATEGORIES", "FLAGS", "RATIO", "STATUS"]
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
        let troubled = index.bundles.filter { !$0.diagnostics.isEmpty }
        if !troubled.isEmpty || !index.diagnostics.isEmpty {
            text += "\n" + terminal.bold("Problems") + "\n"
            for diagnostic in index.diagnostics { text += "  " + terminal.line(for: diagnostic) + "\n" }
            for bundle in troubled {
                text += "  \(bundle.name)\n"
                for diagnostic in bundle.diagnostics { text += "    " + terminal.line(for: diagnostic) + "\n" }
            }
        }
        return text
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
        if errors > 0 {
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
            return ([bundle.name, "-", "-", "-", "-", "-", status], styled)
        }
        var flags: [String] = []
        if manifest.defaultContentHidden { flags.append("hidden") }
        if manifest.overridesDefaultTitle { flags.append("title") }
        if manifest.userInteractionEnabled { flags.append("touch") }
        if bundle.interface != nil { flags.append("view") }
        let ratio = manifest.initialContentSizeRatio.map { NumberText.short($0) } ?? "-"
        let categories = manifest.categories.isEmpty ? "(all)" : manifest.categories.joined(separator: ",")
        return ([bundle.name, manifest.point.shortName, manifest.appIdentifier, categories,
                 flags.isEmpty ? "-" : flags.joined(separator: ","), ratio, status], styled)
    }
}
