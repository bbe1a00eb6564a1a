import Core
import Foundation
import Graphics
import XCTest

/// The render worker's promises, with a plain context (no GL needed to test the queue).
final class RenderWorkerTests: XCTestCase {
    final class Counter { var jobs = 0; var thread: Thread? }

    func testJobsRunInOrderOnTheWorkersOwnThread() throws {
        let worker = RenderWorker { () -> Counter in
            let c = Counter()
            c.thread = Thread.current
            return c
        }
        var seen: [Int] = []
        for i in 0..<20 { worker.submit({ c in c.jobs += 1; seen.append(i) }, failed: { XCTFail("\($0)") }) }
        let (count, onWorker) = try worker.performBlocking { c in (c.jobs, Thread.current == c.thread) }
        XCTAssertEqual(count, 20)
        XCTAssertTrue(onWorker)
        XCTAssertFalse(Thread.current == (try worker.performBlocking { $0.thread }))
        XCTAssertEqual(seen, Array(0..<20))
    }

    /// A job that is done lets go of what it captured (the service's jobs hold whole structures'
    /// geometry: kept until 64 jobs had passed, a 1.9M-atom upload grew the service by 150 MB a picture).
    func testADoneJobLetsGoOfWhatItHeld() throws {
        final class Geometry {}
        let worker = RenderWorker<Int> { 0 }
        weak var held: Geometry?
        do {
            let geometry = Geometry()
            held = geometry
            try worker.performBlocking { _ in withExtendedLifetime(geometry) {} }
        }
        try worker.performBlocking { _ in }  // the first job's turn is over
        XCTAssertNil(held)
        worker.close()
    }

    func testAFullQueueMakesSubmittersWait() throws {
        let worker = RenderWorker(capacity: 2) { Counter() }
        let gate = DispatchSemaphore(value: 0)
        worker.submit({ _ in gate.wait() }, failed: { _ in })
        worker.submit({ _ in }, failed: { _ in })
        worker.submit({ _ in }, failed: { _ in })
        let submitted = DispatchSemaphore(value: 0), returned = Locked(false)
        Thread { worker.submit({ _ in }, failed: { _ in }); returned.withLock { $0 = true }; submitted.signal() }.start()
        // Waits for the condition (at most 10 s), not for a time: the fourth job waits for room.
        XCTAssertTrue(waitUntil { worker.waitingForRoom == 1 }, "the fourth job waits: one drawing, two queued")
        XCTAssertFalse(returned.withLock { $0 })
        XCTAssertEqual(worker.queued, 2)
        gate.signal()
        XCTAssertEqual(submitted.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(worker.waitingForRoom, 0)
    }

    /// A task that asks a closed worker is told so, never left waiting in a queue no thread serves.
    func testAsyncCallersOfAClosedWorkerGetRenderWorkerClosed() async throws {
        let worker = RenderWorker { Counter() }
        _ = try await worker.draw { $0.jobs }
        worker.close()
        do {
            _ = try await worker.draw { $0.jobs }
            XCTFail("a closed worker drew")
        } catch is RenderWorkerClosed {}
        do {
            _ = try await worker.perform { $0.jobs }
            XCTFail("a closed worker drew")
        } catch is RenderWorkerClosed {}
    }

    /// An async caller's job runs isolated to the worker, on its GL thread: where the context
    /// was made and where threads' jobs run.
    func testAsyncJobsRunOnTheWorkersThread() async throws {
        let worker = RenderWorker { () -> Counter in
            let c = Counter()
            c.thread = Thread.current
            return c
        }
        let onWorker = try await worker.perform { c in Thread.current == c.thread }
        XCTAssertTrue(onWorker)
        let viaDraw = try await worker.draw { c in Thread.current == c.thread }
        XCTAssertTrue(viaDraw)
        let fromThread = try worker.performBlocking { c in Thread.current == c.thread }
        XCTAssertTrue(fromThread)
        worker.close()
    }

    func testAsyncCallersGetResultsAndErrors() async throws {
        let worker = RenderWorker(capacity: 1) { Counter() }
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<16 { group.addTask { try await worker.perform { c in c.jobs += 1; return i * 2 } } }
            var all: [Int] = []
            for try await r in group { all.append(r) }
            return all.sorted()
        }
        XCTAssertEqual(results, (0..<16).map { $0 * 2 })
        struct Refused: Error {}
        do {
            _ = try await worker.perform { _ -> Int in throw Refused() }
            XCTFail("the job's error reaches the caller")
        } catch is Refused {}
    }

    func testAContextThatCannotBeMadeFailsEveryJob() throws {
        let worker = RenderWorker { () throws -> Counter in throw MachineError("no context here") }
        XCTAssertThrowsError(try worker.performBlocking { $0.jobs }) { XCTAssertEqual(($0 as? MachineError)?.message, "no context here") }
        let failed = DispatchSemaphore(value: 0)
        worker.submit({ _ in XCTFail("ran without a context") }, failed: { _ in failed.signal() })
        XCTAssertEqual(failed.wait(timeout: .now() + 5), .success)
    }

    func testClosingFinishesQueuedJobsAndRefusesLaterOnes() throws {
        let worker = RenderWorker { Counter() }
        var done = 0
        for _ in 0..<3 { worker.submit({ _ in Thread.sleep(forTimeInterval: 0.01); done += 1 }, failed: { _ in }) }
        worker.close()
        XCTAssertEqual(done, 3)
        XCTAssertThrowsError(try worker.performBlocking { $0.jobs }) { XCTAssertTrue($0 is RenderWorkerClosed) }
    }

    /// A worker released while its thread is still finishing (the last job just done) is freed
    /// cleanly: its thread held the worker itself before, and the runtime aborted the process
    /// when the worker was freed with that reference still held (seen once in 9 loaded runs of
    /// the suite). Many workers, released from many threads at once, to meet that moment.
    func testWorkersReleasedWhileTheirThreadsFinishAreFreedCleanly() {
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            var worker: RenderWorker<Int>? = RenderWorker { i }
            worker!.submit({ _ in }, failed: { _ in })
            if i % 2 == 0 { worker!.close() }
            worker = nil
        }
    }
}

/// Waits for `condition` to hold, looking every 10 ms for at most `seconds`: a bounded wait for a
/// state, never an assertion about how long something took.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
