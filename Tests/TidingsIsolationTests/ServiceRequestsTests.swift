import Synchronization
import Testing
import TestSupport
import TidingsBase
@testable import TidingsIsolation

/// A worker's service requests, queued and bounded (`ServiceRequests`): at
/// most `threadLimit` run at once, `queueLimit` more wait, and one beyond is
/// refused at once; each thread's stack fits the worker's memory limit.
@Suite struct ServiceRequestsTests {
    @Test func stacksFitTheMemoryLimit() {
        #expect(ServiceRequests.stackSize(memoryLimit: 0) == 512 << 10)
        #expect(ServiceRequests.stackSize(memoryLimit: 64 << 20) == 512 << 10)
        // 16 threads in a quarter of 16 MiB.
        #expect(ServiceRequests.stackSize(memoryLimit: 16 << 20) == 256 << 10)
        #expect(ServiceRequests.stackSize(memoryLimit: 1 << 20) == 128 << 10)
        #expect(ServiceRequests.threadLimit * ServiceRequests.stackSize(memoryLimit: 64 << 20) <= (64 << 20) / 4)
    }

    @Test func requestsBeyondTheThreadsWaitAndBeyondTheQueueAreRefusedAtOnce() {
        let requests = ServiceRequests(memoryLimit: 64 << 20)
        let gate = Latch()
        let ran = Atomic<Int>(0)
        let running = Atomic<Int>(0)
        let mostAtOnce = Atomic<Int>(0)
        func request(_ number: Int) -> ServiceRequests.Request {
            ServiceRequests.Request(call: UInt64(number), instance: UInt64(number)) {
                let now = running.add(1, ordering: .sequentiallyConsistent).newValue
                var most = mostAtOnce.load(ordering: .sequentiallyConsistent)
                while now > most {
                    let (exchanged, seen) = mostAtOnce.compareExchange(expected: most, desired: now, ordering: .sequentiallyConsistent)
                    if exchanged { break }
                    most = seen
                }
                _ = gate.wait(until: MonotonicClock.deadline(after: patience))
                running.subtract(1, ordering: .sequentiallyConsistent)
                ran.add(1, ordering: .sequentiallyConsistent)
            }
        }
        let admitted = ServiceRequests.threadLimit + ServiceRequests.queueLimit
        for number in 0..<admitted {
            #expect(requests.submit(request(number)) == nil, "request \(number)")
        }
        // The threads are busy and the queue is full: the next one is answered now, not at a deadline.
        let refused = requests.submit(request(admitted))
        #expect(refused?.code.rawValue == "worker.busy")
        // One still waiting is withdrawn (its time was up before it started), and never runs.
        #expect(requests.withdraw(instance: UInt64(admitted - 1))?.call == UInt64(admitted - 1))
        #expect(requests.withdraw(instance: UInt64(admitted - 1)) == nil)
        gate.open()
        #expect(eventually { ran.load(ordering: .sequentiallyConsistent) == admitted - 1 })
        #expect(mostAtOnce.load(ordering: .sequentiallyConsistent) <= ServiceRequests.threadLimit)
    }
}
