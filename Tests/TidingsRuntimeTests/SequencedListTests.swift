import Testing
import TidingsRuntime

/// The list the host keeps its notifications in, in the order delivered:
/// against a plain sorted array through thousands of random insertions
/// (mostly at the end) and removals, and through gaps and compactions.
@Suite struct SequencedListTests {
    /// The list's content as (number, element) pairs, first to last.
    func contents(_ list: SequencedList<String>, after number: UInt64 = 0) -> [UInt64] {
        list.elements(after: number).map(\.key)
    }

    @Test func agreesWithASortedArrayThroughRandomChanges() {
        var list = SequencedList<String>()
        var model: [UInt64] = []
        // A linear congruential sequence: the same arbitrary choices every run.
        var state: UInt64 = 12
        func random() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var next: UInt64 = 1
        var removed: [UInt64] = []
        for step in 0..<20_000 {
            let roll = random() % 100
            if roll < 55 || model.isEmpty {
                list.insert("e\(next)", as: next)
                model.append(next)
                next += 1
            } else if roll < 60, let gap = removed.popLast() {
                // Back in its old place, as a restored notification shown again.
                list.insert("e\(gap)", as: gap)
                model.insert(gap, at: model.firstIndex { $0 > gap } ?? model.endIndex)
            } else {
                let victim = roll < 80 ? model[0] : model[Int(random() % UInt64(model.count))]
                #expect(list.remove(victim) == "e\(victim)")
                model.removeAll { $0 == victim }
                removed.append(victim)
            }
            #expect(list.count == model.count)
            #expect(list.first?.key == model.first)
            if step % 997 == 0 {
                #expect(contents(list) == model)
                let cut = model.isEmpty ? 0 : model[model.count / 2]
                #expect(contents(list, after: cut) == model.filter { $0 > cut })
            }
        }
        #expect(contents(list) == model)
    }

    @Test func removingWhatIsNotThereChangesNothing() {
        var list = SequencedList<String>()
        for number in 1...3 { list.insert("e\(number)", as: UInt64(number)) }
        #expect(list.remove(2) == "e2")
        #expect(list.remove(2) == nil)
        #expect(list.remove(9) == nil)
        #expect(contents(list) == [1, 3])
        #expect(contents(list, after: 1) == [3])
        #expect(contents(list, after: .max).isEmpty)
    }

    @Test func emptiedItHoldsNothingAndGrowsAgain() {
        var list = SequencedList<String>()
        for number in 1...1_000 { list.insert("e\(number)", as: UInt64(number)) }
        for number in 1...1_000 { list.remove(UInt64(number)) }
        #expect(list.count == 0)
        #expect(list.first == nil)
        #expect(contents(list).isEmpty)
        list.insert("e1001", as: 1_001)
        #expect(list.first?.element == "e1001")
    }
}
