import Testing
import TidingsDesktop

/// Which app identifiers can be bus names: the D-Bus specification's rules
/// for well-known names, which decide `.noBusName` before any call.
@Suite struct AppActivationNameTests {
    @Test(arguments: ["com.example.events", "org.example.Reminders", "a.b", "com.example.my-app", "_x.y_2",
                      "com.example." + String(repeating: "a", count: 243)])
    func aReverseDNSIdentifierIsABusName(_ name: String) {
        #expect(BusName.isWellKnown(name))
    }

    @Test(arguments: ["", "events", "com..example", ".com.example", "com.example.", "com.2example", "1com.example",
                      ":1.42", "com.example.événements", "com.example/events", "com example.events",
                      "com.example." + String(repeating: "a", count: 244)])
    func otherIdentifiersAreNot(_ name: String) {
        #expect(!BusName.isWellKnown(name))
    }
}
