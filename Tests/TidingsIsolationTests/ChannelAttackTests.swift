// Tests that attack the host through the worker's channel itself: a hostile
// extension (Tests/Fixtures/Extensions/HostileChannel.c) that writes
// hand-made protocol messages to its descriptor 3, served by the real
// `tidings serve` beside a healthy extension of another app, in the arena
// of AttackTests and judged as its attacks are.
//
// Run as root, and as an unprivileged user as AttackTests says:
//
//     setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/nobody-home \
//         .build/debug/TidingsPackageTests.xctest --testing-library swift-testing --filter ChannelAttackTests
import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation

/// Each attack on the channel, delivered every tenth round of a hundred
/// healthy deliveries, with the whole sandbox and with its fallback: a
/// flood of attachment requests ends as fault `abuse` (three quarantine the
/// bundle) with the server's threads bounded whatever the number of
/// messages; reports reach the server's log only as quoted lines of the
/// bundle's, at its rate; messages naming what the worker was not given
/// change nothing; an attachment's descriptor names no path of the host's.
@Suite(.serialized) struct ChannelAttackTests {
    @Test(arguments: ChannelAttack.all.filter { !$0.dependsOnTheWorkersOwnUse }, SandboxMode.allCases)
    func channelAttackIsContained(_ attack: Attack, _ mode: SandboxMode) throws {
        try AttackTests.contain(attack, mode)
    }

    /// The service attacks, judged by what the service worker uses beside the extension: not under a
    /// sanitizer, whose runtime ends the worker (`exit`) when attaching runs it out of memory.
    @Test(.disabled(if: Sanitizer.current != nil,
                    "a sanitizer's runtime in the worker uses the memory these attacks are judged by"),
          arguments: ChannelAttack.all.filter(\.dependsOnTheWorkersOwnUse), SandboxMode.allCases)
    func channelAttackOnTheWorkersLimitsIsContained(_ attack: Attack, _ mode: SandboxMode) throws {
        try AttackTests.contain(attack, mode)
    }

    /// A quarantine ends every worker of the bundle that still runs, not only
    /// the last one started: three interfaces left open (a worker each), then
    /// three crashes; the open interfaces' workers end with the quarantine.
    @Test(arguments: SandboxMode.allCases)
    func aQuarantineEndsEveryRunningWorker(_ mode: SandboxMode) throws {
        let arena = try Arena(mode: mode, service: false)
        defer { arena.cleanUp() }
        try arena.start()
        _ = try arena.sandboxLayers()
        let server = try #require(arena.server)
        let before = Set(Processes.descendants(of: server.identifier).map(\.pid))
        let idle = Attack("idle", issue: nil) { _ in .contained }
        for round in 0..<3 {
            let outcome = try arena.deliverAttack(idle, round: round, parameters: [:])
            #expect(outcome.label?.hasPrefix("idle") == true, "\(outcome.label ?? "no view") \(outcome.codes)")
        }
        let open = Processes.descendants(of: server.identifier).filter { !before.contains($0.pid) }
        try #require(!open.isEmpty, "the open interfaces have no worker")
        let crash = Attack("touch-and-crash", issue: nil) { _ in .fault("crash") }
        var faults = 0
        while faults < 3 {
            let outcome = try arena.deliverAttack(crash, round: 10 + faults, parameters: [:])
            try #require(outcome.reachedWorker, "the worker was not reached: \(outcome.codes)")
            faults += 1
            try #require(arena.waitForFaults(faults), "no fault came")
        }
        #expect(arena.ledgerEntry()?.quarantined == true)
        // The quarantine's retirement is the host's: wait for its end of the processes.
        var alive = open.filter(\.isAlive)
        eventually {
            alive = alive.filter(\.isAlive)
            return alive.isEmpty
        }
        #expect(alive.isEmpty, "workers of the quarantined bundle still run: \(alive.map(\.description))")
        try arena.stopServer()
        arena.expectNothingLeft()
    }
}

/// The attacks of HostileChannel.c.
enum ChannelAttack {
    /// The most threads the server may have while a worker floods it: what it
    /// runs with (about 8), its workers' readers and attachment queues, with
    /// room to spare, and far below one per message (2,000 and more).
    static let threadBound = 64

    static let all: [Attack] = [
        Attack("attachment-flood", issue: "raw createAttachment/openAttachment messages, reply sockets never read",
               service: true, fixture: "HostileChannel", dependsOnTheWorkersOwnUse: true,
               // The channel's budget (abuse) and the store's refusals (store: the bundle's quota filled by the
               // flood's files) race to end the same flood; either is the host ending it.
               expected: { _ in .fault("abuse", or: "store") },
               beforeRounds: { arena in arena.watchThreads() },
               whileServing: { arena, _ in
                   var standardError = StandardError()
                   print("THREADS attachment-flood (\(arena.mode.rawValue), uid \(geteuid())): the server had at most \(arena.mostThreads)",
                         to: &standardError)
                   #expect(arena.mostThreads > 0, "the server's threads were never counted")
                   #expect(arena.mostThreads <= threadBound,
                           "the server had \(arena.mostThreads) threads during the flood, beyond \(threadBound)")
               }),
        Attack("report-flood", issue: "raw report messages with embedded newlines and ESC sequences",
               fixture: "HostileChannel",
               expected: { _ in .contained },
               afterServing: { arena, _ in expectReportsContained(arena) }),
        Attack("forge-messages", issue: "done, host calls, completions, open_attachment naming what it was not given",
               fixture: "HostileChannel",
               expected: { _ in .contained },
               whileServing: { arena, _ in
                   let listed = try arena.client?.call("notifications.list")["notifications"]?.arrayValue ?? []
                   let identifiers = Set(listed.compactMap { $0["notification"]?["identifier"]?.stringValue })
                   #expect(identifiers.contains(Arena.victim), "another app's notification was removed")
               }),
        Attack("readlink-attachment", issue: "readlink of the descriptor open_attachment hands the worker",
               service: true, fixture: "HostileChannel",
               expected: { _ in .contained },
               whileServing: { arena, outcomes in
                   for outcome in outcomes {
                       let label = outcome.label ?? "no title"
                       #expect(label.contains("memfd:attachment"), "the attachment's descriptor is no sealed copy: \(label)")
                       #expect(!label.contains(arena.home), "the attachment's descriptor names the host's store: \(label)")
                   }
               }),
    ]

    /// What the worker reported reached the server's log only as lines of the
    /// bundle's: every line single, without a control character, what the
    /// worker wrote quoted after "reported:", at the bundle's rate.
    static func expectReportsContained(_ arena: Arena) {
        let log = arena.log
        #expect(!log.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F || $0 == "\u{2028}" },
                "a control character reached the server's log")
        #expect(!log.contains("/etc/passwd"), "the worker's location reached the server's log")
        let lines = log.split(separator: "\n")
        let reported = lines.filter { $0.contains("com.example.hostile.content reported: \"") }
        #expect(!reported.isEmpty, "the worker's reports were never logged")
        for line in lines where line.contains("FORGED") {
            let quote = line.range(of: "reported: \"")
            #expect(quote != nil && line.range(of: "FORGED")!.lowerBound > quote!.upperBound,
                    "a forged line reached the server's log unquoted: \(line)")
            #expect(!line.contains("[worker.quarantined]"), "the worker's report kept the host's code: \(line)")
        }
        // Four a second for the bundle, and one more as each of its workers ends.
        let bound = 4 * (arena.servedFor.rounded(.up) + 1) + 10
        #expect(Double(reported.count) <= bound, "\(reported.count) report lines in \(arena.servedFor) s")
    }
}
