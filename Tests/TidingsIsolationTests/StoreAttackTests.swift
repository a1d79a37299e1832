// Tests that attack the attachment store: a hostile service extension
// (Tests/Fixtures/Extensions/Hostile.c built with -DHOSTILE_SERVICE, attack
// "store-filler") that attaches a large PNG over and over, served by the real
// `tidings serve` beside a healthy extension of another app, in the arena of
// AttackTests and judged as its attacks are.
//
// Run as root, and as an unprivileged user as AttackTests says:
//
//     setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/nobody-home TMPDIR=/tmp \
//         .build/debug/TidingsPackageTests.xctest --testing-library swift-testing --filter StoreAttackTests
import Foundation
import Glibc
import Testing
import TidingsBase
import TidingsIsolation

/// The attack that filled the store (a service extension that attached a
/// 9.5 MB PNG again and again left 172–180 MB from one notification),
/// delivered every tenth round of a hundred healthy deliveries, with the
/// whole sandbox and with its fallback, against quotas lowered in
/// config.json so that a few files of 1 MiB reach them: after each delivery
/// the store holds no more for a notification than its quota, no more for
/// the app than the app's, and no file that no kept notification carries;
/// the extension sees Apple's 104 for each file refused; 16 refusals in a
/// delivery are fault `store`, and three quarantine the bundle.
@Suite(.serialized) struct StoreAttackTests {
    /// Delivers `attack` among a hundred healthy deliveries in `mode`, as `AttackTests.contain` does.
    /// Not under a sanitizer, whose runtime in the service worker runs out of
    /// memory while it attaches, and ends it (`exit`) before the quota is met.
    @Test(.disabled(if: Sanitizer.current != nil,
                    "a sanitizer's runtime in the worker uses the memory this attack is judged by"),
          arguments: StoreAttack.all, SandboxMode.allCases)
    func storeAttackIsContained(_ attack: Attack, _ mode: SandboxMode) throws {
        try AttackTests.contain(attack, mode)
    }
}

/// The attacks on the attachment store.
enum StoreAttack {
    /// The size of each PNG the extension attaches: 1 MiB.
    static let fileBytes: UInt64 = 1 << 20
    /// config.json's `attachments-per-notification-mib`: four files' worth.
    static let notificationMiB = 4
    /// config.json's `attachments-per-app-mib`: six files' worth, less than
    /// two notifications' quotas together. (The two deliveries whose faults
    /// leave the worker running reach it: the third's quarantine ends the
    /// worker during its call, and what it was refused is not told.)
    static let appMiB = 6
    /// The files one notification may carry (the default; bytes run out first).
    static let notificationFiles = 32
    /// The refusals the extension goes on through in each delivery: the
    /// store's count of a fault, so each delivery that reaches it is one.
    static let refusals = 16

    /// The attacks, each with its quotas and checks.
    static let all: [Attack] = [
        Attack("store-filler", issue: "a service extension attaches a large PNG over and over; 172–180 MB in the store from one notification",
               service: true,
               parameters: ["attachment-bytes": "\(fileBytes)", "refusals": "\(refusals)"],
               limits: ["attachments-per-notification-mib": notificationMiB, "attachments-per-app-mib": appMiB],
               expected: { _ in .fault("store") },
               afterEachDelivery: { arena, outcome in try expectStoreWithinQuota(arena, after: outcome) },
               whileServing: { _, outcomes in expectRefusalsSeen(outcomes) }),
    ]

    /// After a delivery: every file in the store is one a kept notification
    /// carries; each notification's files, as the store holds them, are
    /// within its quota, and all of them within the app's.
    static func expectStoreWithinQuota(_ arena: Arena, after outcome: AttackOutcome) throws {
        let stored = Dictionary(uniqueKeysWithValues: Arena.files(under: arena.attachmentStore).map { path in
            var status = stat()
            return (path, lstat(path, &status) == 0 ? UInt64(status.st_size) : 0)
        })
        let listed = try #require(arena.client).call("notifications.list")["notifications"]?.arrayValue ?? []
        var carried: [String: Set<String>] = [:]
        for entry in listed {
            let identifier = entry["notification"]?["identifier"]?.stringValue ?? "?"
            for attachment in Arena.objects(in: entry) {
                guard let url = attachment["url"]?.stringValue, url.hasPrefix("file://"),
                      let path = String(url.dropFirst("file://".count)).removingPercentEncoding,
                      path.hasPrefix(arena.attachmentStore + "/") else { continue }
                carried[identifier, default: []].insert(path)
            }
        }
        let orphans = Set(stored.keys).subtracting(carried.values.flatMap { $0 })
        #expect(orphans.isEmpty, "the store keeps \(orphans.count) files no notification carries: \(orphans.sorted())")
        for (notification, paths) in carried.sorted(by: { $0.key < $1.key }) {
            let missing = paths.filter { stored[$0] == nil }
            #expect(missing.isEmpty, "\(notification) carries attachments the store lacks: \(missing.sorted())")
            let bytes = paths.compactMap { stored[$0] }.reduce(0, +)
            #expect(bytes <= UInt64(notificationMiB) << 20 && paths.count <= notificationFiles,
                    "\(notification) holds \(paths.count) files, \(bytes) bytes in the store, beyond its quota of \(notificationMiB) MiB")
        }
        let total = stored.values.reduce(0, +)
        #expect(total <= UInt64(appMiB) << 20, "the store holds \(total) bytes for one app, beyond its quota of \(appMiB) MiB")
        let delivered = Set(Arena.objects(in: outcome.answer).compactMap { $0["url"]?.stringValue }.filter { $0.hasPrefix("file://") })
        var standardError = StandardError()
        print("STORE store-filler (\(arena.mode.rawValue), uid \(geteuid())): the delivery kept \(delivered.count) files; "
              + "the store holds \(stored.count) files, \(total) bytes, for \(carried.count) notifications",
              to: &standardError)
    }

    /// The extension was refused with Apple's 104 as often as it tried past
    /// the quota: the first delivery attached exactly the notification's
    /// quota, the second what was left of the app's, and both refusals say so.
    static func expectRefusalsSeen(_ outcomes: [AttackOutcome]) {
        // The first two store faults leave the worker running: those deliveries complete.
        let completed = outcomes.prefix(2)
        for (index, outcome) in completed.enumerated() {
            let label = outcome.label ?? "no title \(outcome.codes)"
            #expect(label.hasPrefix("contained:") && label.contains("refused \(refusals) (Apple's 104: \(refusals))"),
                    "delivery \(index + 1): the extension did not see its files refused with 104: \(label)")
            #expect(outcome.codes.contains("attachment.store-quota") && outcome.codes.contains("attachment.store-abuse"),
                    "delivery \(index + 1): \(outcome.codes)")
        }
        // The third ends the worker during its call: that call says the bundle is quarantined, not that a
        // worker restarts (none will).
        let third = outcomes.count > 2 ? outcomes[2] : nil
        #expect(third?.codes.contains("worker.quarantined") == true && third?.earlierCodes == [],
                "delivery 3, during which the quarantine began: \(third?.earlierCodes ?? []) then \(third?.codes ?? [])")
        let perNotification = Int(UInt64(notificationMiB) << 20 / fileBytes)
        let perApp = Int(UInt64(appMiB) << 20 / fileBytes)
        for (index, expected) in [perNotification, perApp - perNotification].enumerated() {
            let label = outcomes.count > index ? outcomes[index].label ?? "no title" : "no delivery"
            #expect(label.contains("attached \(expected) (\(UInt64(expected) * fileBytes) bytes)"),
                    "delivery \(index + 1) did not attach exactly what the quotas left (\(expected) files): \(label)")
        }
        let sentences = outcomes.flatMap { outcome in
            (outcome.answer["diagnostics"]?.arrayValue ?? []).filter { $0["code"]?.stringValue == "attachment.store-quota" }
                .compactMap { $0["message"]?.stringValue }
        }
        #expect(sentences.contains { $0.contains("of com.example.hostile may keep at most") },
                "no refusal for the notification's quota: \(Set(sentences))")
        #expect(sentences.contains { $0.contains("the notifications of com.example.hostile may keep at most") },
                "no refusal for the app's quota, which two notifications' quotas pass: \(Set(sentences))")
    }
}
