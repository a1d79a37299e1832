import Testing
import TestSupport
import TidingsBase
@testable import TidingsServer

/// Authorization decisions in the server's journal: the last decision of
/// each app comes back, through folds into snapshots; a reset app comes back
/// not determined.
@Suite struct AuthorizationStateTests {
    let directory = TemporaryDirectory("authorization-state")

    func open(threshold: Int = 4 << 20) throws -> JournaledState {
        try JournaledState(directory: directory.file("state"), foldThreshold: threshold)
    }

    @Test func theLastDecisionOfEachAppComesBackThroughFolds() throws {
        do {
            let state = try open(threshold: 2_000)
            for number in 0..<60 {
                let status: AppAuthorization.Status = number.isMultiple(of: 2) ? .authorized : .denied
                try state.recordAuthorization(AppAuthorization(status: status, options: [.alert, .badge]), of: "com.example.a\(number % 3)")
            }
            try state.recordAuthorization(AppAuthorization(status: .provisional, options: [.alert, .provisional]), of: "com.example.quiet")
            try state.recordAuthorization(AppAuthorization(status: .denied), of: "com.example.reset")
            try state.recordAuthorization(.notDetermined, of: "com.example.reset")
            #expect(eventually { state.folds.count > 0 })
        }
        let state = try open()
        let kept = Dictionary(uniqueKeysWithValues: state.kept.authorizations.map { ($0.app, $0.authorization) })
        // The last of 0…59 for each app: 57 (a0, odd: denied), 58 (a1, even: authorized), 59 (a2, odd: denied).
        #expect(kept["com.example.a0"] == AppAuthorization(status: .denied, options: [.alert, .badge]))
        #expect(kept["com.example.a1"] == AppAuthorization(status: .authorized, options: [.alert, .badge]))
        #expect(kept["com.example.a2"]?.status == .denied)
        #expect(kept["com.example.quiet"] == AppAuthorization(status: .provisional, options: [.alert, .provisional]))
        #expect(kept["com.example.reset"]?.status ?? .notDetermined == .notDetermined)
        #expect(state.kept.diagnostics.isEmpty)
    }
}
