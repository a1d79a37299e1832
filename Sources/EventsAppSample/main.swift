import Glibc
import TidingsDesktop

// tidings-events-app: the sample app com.example.events, which receives
// Tidings' responses over org.freedesktop.Application (see
// Docs/reference/desktop-activation.md).

/// Prints `sentence` on standard error and exits with `status`.
func fail(_ sentence: String, status: Int32) -> Never {
    writeLine("tidings-events-app: \(sentence)", to: 2)
    exit(status)
}

/// Connects, takes the name, and answers calls until idle or the bus closes.
func serve(_ options: Options) -> Never {
    let environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    let app = EventsApp(options: options)
    let connection: BusConnection
    do throws(BusError) {
        let library = try SDBusLibrary()
        // D-Bus activation names the bus that started it in DBUS_STARTER_ADDRESS.
        if let address = options.bus ?? environment("DBUS_STARTER_ADDRESS") {
            connection = try BusConnection(address: address, description: "tidings-events-app", library: library)
        } else {
            connection = try BusConnection(sessionBusWith: library, environment: environment)
        }
        // Who the desktop front end is, followed as it changes (subscribed before asking, so no change is missed).
        try BusDaemonClient.followOwner(of: DesktopBus.busName, on: connection) { _, owner in
            app.frontEnd = owner.isEmpty ? nil : owner
        }
        app.frontEnd = try? BusDaemonClient.nameOwner(DesktopBus.busName, on: connection)
        // The object first, then the name: a call queued for the name while D-Bus
        // activation started the app finds the object there.
        try connection.exportObject(at: ApplicationClient(busName: EventsApp.busName).path) {
            (call: borrowing MethodCall) throws(BusError) in try app.handle(call)
        }
        try connection.requestName(EventsApp.busName)
    } catch {
        fail(error.description, status: 69)
    }
    // A year stands for "no --idle": the loop only wakes for calls then.
    let idle = options.idle ?? 365 * 86_400
    do throws(BusError) {
        while true {
            app.called = false
            if try !connection.run(until: { app.called }, seconds: idle) { break }
        }
        // Leave without losing a call: give the name back first (a call sent
        // to it afterwards starts the app anew), then answer the calls the bus
        // routed here before (they arrive ahead of ReleaseName's reply).
        _ = try connection.call(BusDaemonClient.name, BusDaemonClient.path, BusDaemonClient.name, "ReleaseName",
                                arguments: { (message: borrowing MessageWriter) throws(BusError) in
                                    try message.append(EventsApp.busName)
                                }, reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readUInt32() })
        try connection.processPending()
    } catch {
        // The bus went away (the session ended): nothing left to serve.
        writeLine("tidings-events-app: \(error.description)", to: 2)
    }
    exit(0)
}

do throws(Options.Refused) {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    if options.help {
        print(Options.usage)
        exit(0)
    }
    serve(options)
} catch {
    fail(error.sentence, status: 64)
}
