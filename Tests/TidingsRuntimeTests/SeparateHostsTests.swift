import Testing
import TidingsABI
import TidingsBase
import TidingsRuntime

/// Two hosts in one process share nothing an extension reaches through the
/// ABI: each has its own contexts and completions, and a handle leads only
/// to the host that issued it, even through the functions that are given
/// nothing but the handle.
@Suite struct SeparateHostsTests {
    let a = HostEndpoint(table: HostFunctions.table(callRate: .standard))
    let b = HostEndpoint(table: HostFunctions.table(callRate: .standard))

    /// A context of `endpoint` whose extension may set its title.
    func context(of endpoint: HostEndpoint) -> InstanceContext {
        InstanceContext(extensionIdentifier: "com.example.separate", mayOverrideTitle: true, interface: nil,
                        in: endpoint.contexts)
    }

    @Test func aTokenOfOneHostCompletesNothingOfAnother() {
        let contextA = context(of: a)
        let contextB = context(of: b)
        let pending = a.completions.begin(for: contextA.handle, deadline: MonotonicClock.deadline(after: 60),
                                          extensionIdentifier: "com.example.separate", report: { _ in })
        // B's table knows nothing of A's token, and A's response is unaffected.
        #expect(b.complete(pending.token, with: .option(TIDINGS_RESPONSE_DISMISS), by: nil)
                    == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(b.completions.complete(pending.token, with: .option(TIDINGS_RESPONSE_DISMISS), by: contextB.handle)
                    == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(pending.result == nil)
        // Naming an instance of B does not complete A's response either.
        let functions = a.table.pointer.pointee
        #expect(functions.complete_response_for?(contextB.cHandle, pending.token, TIDINGS_RESPONSE_DISMISS)
                    == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(pending.result == nil)
        // Given only the token, the ABI's function finds A.
        #expect(functions.complete_response?(pending.token, TIDINGS_RESPONSE_DO_NOT_DISMISS) == TIDINGS_STATUS_OK)
        #expect(pending.result == .option(.doNotDismiss))
        a.completions.finish(pending)
    }

    @Test func aTokenGivenToOneInstanceIsCompletedOnlyByIt() {
        let given = context(of: a)
        let other = context(of: a)
        let pending = a.completions.begin(for: given.handle, deadline: MonotonicClock.deadline(after: 60),
                                          extensionIdentifier: "com.example.separate", report: { _ in })
        let functions = a.table.pointer.pointee
        #expect(functions.complete_response_for?(other.cHandle, pending.token, TIDINGS_RESPONSE_DISMISS)
                    == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(functions.complete_response_for?(given.cHandle, pending.token, TIDINGS_RESPONSE_DISMISS)
                    == TIDINGS_STATUS_OK)
        #expect(pending.result == .option(.dismiss))
        a.completions.finish(pending)
    }

    @Test func aContextOfOneHostIsNoContextOfAnother() {
        let contextA = context(of: a)
        #expect(b.contexts.sink(contextA.handle) == nil)
        #expect(a.contexts.sink(contextA.handle) != nil)
        let functions = b.table.pointer.pointee
        // Whichever host's table it is called through, the handle reaches A's context.
        #expect(functions.set_title?(contextA.cHandle, "Through B's table") == TIDINGS_STATUS_OK)
        #expect(contextA.snapshot().title == "Through B's table")
    }

    @Test func theHandlesOfAHostThatIsGoneNameNothing() {
        var gone: HostEndpoint? = HostEndpoint(table: HostFunctions.table(callRate: .standard))
        let context = context(of: gone!)
        gone = nil
        // Its slot is free, or another host's since: either way the handle names nothing.
        #expect(HandleDirectory.shared.owner(of: context.handle)?.contexts.sink(context.handle) == nil)
        let successor = HostEndpoint(table: HostFunctions.table(callRate: .standard))
        #expect(successor.contexts.sink(context.handle) == nil)
        #expect(a.table.pointer.pointee.set_title?(context.cHandle, "late") == TIDINGS_STATUS_INVALID_CONTEXT)
    }
}
