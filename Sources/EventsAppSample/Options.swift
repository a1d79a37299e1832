/// What the command line asks of the sample app.
struct Options {
    static let usage = """
        Usage: tidings-events-app [--bus ADDRESS] [--record PATH] [--idle SECONDS] [--json] [--help]

        The sample app com.example.events (EventInvite's app) on the session bus:
        it owns the name com.example.events and exports org.freedesktop.Application
        at /com/example/events (Activate, Open, ActivateAction), as a D-Bus
        activatable app does, and prints one line for each call it receives. Tidings'
        desktop front end hands it each response with ActivateAction("tidings.response", ...).

        Options:
          --bus ADDRESS     the bus to use (default: the bus that started it by D-Bus
                            activation, else the session bus)
          --record PATH     also append each call to PATH, one JSON object a line
          --idle SECONDS    exit after SECONDS without a call (D-Bus activation starts it again)
          --json            print each call as one JSON object a line
          --help            show this help

        Exit status: 0 when idle or the bus closed, 64 for a wrong argument, 69 when
        there is no D-Bus (no libsystemd.so.0, no session bus) or the name is taken.
        """

    var bus: String?
    var record: String?
    var idle: Double?
    var json = false
    var help = false

    /// Why the command line was refused: one sentence.
    struct Refused: Error {
        var sentence: String
    }

    /// The options `arguments` give (the program's name left out).
    init(_ arguments: [String]) throws(Refused) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--bus": bus = try Self.value(of: argument, &rest)
            case "--record": record = try Self.value(of: argument, &rest)
            case "--idle":
                let text = try Self.value(of: argument, &rest)
                guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw Refused(sentence: "--idle needs a positive number of seconds, not \(text)")
                }
                idle = seconds
            case "--json": json = true
            case "--help", "-h": help = true
            default: throw Refused(sentence: "unknown argument \(argument) (see --help)")
            }
        }
    }

    private static func value(of option: String, _ rest: inout ArraySlice<String>) throws(Refused) -> String {
        guard let value = rest.popFirst() else { throw Refused(sentence: "\(option) needs a value") }
        return value
    }
}
