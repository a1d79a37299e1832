import Testing
import TestSupport
import TidingsDesktop

/// The asynchronous calls AppActivation is made of: replies, errors and
/// timeouts come to the completion inside `processPending`, exactly once;
/// a connection that goes away cancels what it had pending.
@Suite(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
struct AppActivationCallTests {
    @Test func aReplyAndAnErrorComeFromTheLoopOnce() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        var answers: [Result<Bool, BusError>] = []
        try BusDaemonClient.nameHasOwner("org.freedesktop.DBus", on: client) { _, result in answers.append(result) }
        try client.callAsync("org.example.Nobody", "/org/example/Nobody", "org.example.Nothing", "Call",
                             reply: { (_: borrowing MessageReader) in false }) { _, result in answers.append(result) }
        #expect(answers.isEmpty)
        #expect(try client.run(until: { answers.count == 2 }, seconds: patience))
        #expect(try answers[0].get() == true)
        #expect(throws: BusError.self) { try answers[1].get() }
        if case .failure(let error) = answers[1] {
            #expect(error.code == BusError.callFailed)
            #expect(error.name == "org.freedesktop.DBus.Error.ServiceUnknown")
        }
        // Nothing comes twice.
        try BusDaemonClient.roundTrip(on: client) { _, _ in answers.append(.success(true)) }
        #expect(try client.run(until: { answers.count == 3 }, seconds: patience))
        try client.processPending()
        #expect(answers.count == 3)
    }

    @Test func aPeerThatNeverAnswersTimesOutWithNoReply() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        // Owns the name, but its connection is never processed: the call waits forever.
        let silent = try bus.connect()
        try silent.requestName("org.example.Silent")
        var answers: [Result<Void, BusError>] = []
        try ApplicationClient(busName: "org.example.Silent").activate(timeout: 100_000, on: client) { _, result in
            answers.append(result)
        }
        #expect(try client.run(until: { !answers.isEmpty }, seconds: patience))
        guard case .failure(let error)? = answers.first else {
            Issue.record("expected a failure, got \(answers)")
            return
        }
        #expect(error.name == "org.freedesktop.DBus.Error.NoReply")
    }

    @Test func aCompletionCanCallAgainThroughTheConnectionItIsGiven() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        var owned: [Bool] = []
        try BusDaemonClient.nameHasOwner("org.freedesktop.DBus", on: client) { bus, first in
            owned.append((try? first.get()) ?? false)
            try? BusDaemonClient.nameHasOwner("org.example.Nobody", on: bus) { _, second in
                owned.append((try? second.get()) ?? true)
            }
        }
        #expect(try client.run(until: { owned.count == 2 }, seconds: patience))
        #expect(owned == [true, false])
    }

    @Test func aConnectionThatGoesAwayCancelsItsPendingCalls() throws {
        let bus = try PrivateBus()
        var ran = false
        do {
            let client = try bus.connect()
            try BusDaemonClient.roundTrip(on: client) { _, _ in ran = true }
        }
        // The connection is closed and its call cancelled: the completion never ran, nothing crashed.
        let other = try bus.connect()
        try BusDaemonClient.roundTrip(on: other) { _, _ in }
        try other.processPending()
        #expect(!ran)
    }
}
