import Testing
@testable import TidingsServer

/// The table of apps in the foreground: one connection holds at most
/// `ForegroundApps.appsPerConnection` apps (another app is refused, one it
/// holds may be said again), and what a connection held goes with it.
@Suite struct ForegroundAppsTests {
    @Test func aConnectionHoldsABoundedNumberOfAppsAndLetsThemGoWhenItEnds() {
        let table = ForegroundApps(deadline: 1)
        let client = EventRecorder(), other = EventRecorder()
        let limit = ForegroundApps.appsPerConnection
        for number in 0..<limit {
            #expect(table.set("app\(number)", foreground: true, delegate: false, on: client))
        }
        #expect(!table.set("one.more", foreground: true, delegate: false, on: client))
        #expect(!table.isForeground("one.more"))
        #expect(table.set("app0", foreground: true, delegate: true, on: client))
        #expect(table.set("one.more", foreground: true, delegate: false, on: other))
        // Leaving the foreground makes room.
        #expect(table.set("app1", foreground: false, delegate: false, on: client))
        #expect(!table.isForeground("app1"))
        #expect(table.set("app.new", foreground: true, delegate: false, on: client))
        table.forget(client)
        #expect(!table.isForeground("app0") && !table.isForeground("app.new"))
        #expect(table.isForeground("one.more"))
        for number in 0..<limit {
            #expect(table.set("again\(number)", foreground: true, delegate: false, on: client))
        }
    }
}
