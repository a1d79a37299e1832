// tidings-benchmark: the Tidings host's speed against a plain C call.
// See HelpText.swift, or run with --help.
import Glibc
import TidingsBase
import TidingsIsolation

do throws(BenchmarkFailure) {
    let options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
    if options.help {
        print(HelpText.text)
        exit(0)
    }
    // The benchmark hosts workers: it hardens itself first, as `tidings` does.
    do throws(SystemError) {
        try HostHardening.apply()
    } catch {
        throw BenchmarkFailure("This process cannot be made non-dumpable: \(error).")
    }
    let report = try BenchmarkRun(options: options).run()
    if options.json {
        print(ReportJSON.render(report).serialized(pretty: true))
    } else {
        print(ReportTable.render(report), terminator: "")
    }
} catch {
    Progress.error("tidings-benchmark: \(error.message)")
    exit(1)
}
