import Core
import Foundation
import Hummingbird
import Synchronization

/// Counters for `/metrics`, in Prometheus' text format: requests by route and status, a latency
/// histogram, bytes served, the render queue's depth, image cache hits and misses. Written by
/// hand: a few dozen lines against a package that builds for minutes.
public final class ServiceMetrics: Sendable {
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private struct Counts {
        var requests: [String: Int] = [:]      // "route|status"
        var latency: [String: [Int]] = [:]     // route -> bucket counts (+Inf last)
        var latencySum: [String: Double] = [:]
        var bytes = 0
    }
    /// Where the gauges are read, set once the service's parts exist.
    struct Gauges: Sendable {
        var queueDepth: @Sendable () -> Int = { 0 }
        var cacheCounts: @Sendable () -> (hits: Int, misses: Int) = { (0, 0) }
        var liveSessions: @Sendable () -> Int = { 0 }
    }
    private let counts = Mutex(Counts())
    /// Requests answered on the event loop (`ReadyThumbnails`), counted among the requests too.
    let eventLoopAnswers = Atomic<Int>(0)
    let gauges = Locked(Gauges())

    func record(route: String, status: Int, seconds: Double, bytes sent: Int) {
        counts.withLock { c in
            c.requests["\(route)|\(status)", default: 0] += 1
            var buckets = c.latency[route] ?? Array(repeating: 0, count: ServiceMetrics.buckets.count + 1)
            let k = ServiceMetrics.buckets.firstIndex { seconds <= $0 } ?? ServiceMetrics.buckets.count
            buckets[k] += 1
            c.latency[route] = buckets
            c.latencySum[route, default: 0] += seconds
            c.bytes += sent
        }
    }

    public var text: String {
        let g = gauges.withLock { $0 }
        let (requests, latency, latencySum, bytes) = counts.withLock { ($0.requests, $0.latency, $0.latencySum, $0.bytes) }
        let queueDepth = g.queueDepth, liveSessions = g.liveSessions, cacheCounts = g.cacheCounts
        do {
            var out = "# HELP molshot_requests_total Requests by route and status.\n# TYPE molshot_requests_total counter\n"
            for (key, n) in requests.sorted(by: { $0.key < $1.key }) {
                let parts = key.split(separator: "|", maxSplits: 1)
                out += "molshot_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(n)\n"
            }
            out += "# HELP molshot_request_seconds Time to answer, by route.\n# TYPE molshot_request_seconds histogram\n"
            for (route, counts) in latency.sorted(by: { $0.key < $1.key }) {
                var total = 0
                for (i, le) in ServiceMetrics.buckets.enumerated() {
                    total += counts[i]
                    out += "molshot_request_seconds_bucket{route=\"\(route)\",le=\"\(le)\"} \(total)\n"
                }
                total += counts[ServiceMetrics.buckets.count]
                out += "molshot_request_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(total)\n"
                out += "molshot_request_seconds_sum{route=\"\(route)\"} \(latencySum[route] ?? 0)\n"
                out += "molshot_request_seconds_count{route=\"\(route)\"} \(total)\n"
            }
            out += "# HELP molshot_event_loop_answers_total Of the requests, those answered on the event loop (thumbnails in memory).\n"
            out += "# TYPE molshot_event_loop_answers_total counter\nmolshot_event_loop_answers_total \(eventLoopAnswers.load(ordering: .relaxed))\n"
            out += "# HELP molshot_response_bytes_total Body bytes sent.\n# TYPE molshot_response_bytes_total counter\n"
            out += "molshot_response_bytes_total \(bytes)\n"
            out += "# HELP molshot_render_queue_depth Requests waiting for the render thread.\n# TYPE molshot_render_queue_depth gauge\n"
            out += "molshot_render_queue_depth \(queueDepth())\n"
            out += "# HELP molshot_live_sessions Live sessions open.\n# TYPE molshot_live_sessions gauge\n"
            out += "molshot_live_sessions \(liveSessions())\n"
            let c = cacheCounts()
            out += "# HELP molshot_image_cache_total Rendered images found in the cache or not.\n# TYPE molshot_image_cache_total counter\n"
            out += "molshot_image_cache_total{result=\"hit\"} \(c.hits)\nmolshot_image_cache_total{result=\"miss\"} \(c.misses)\n"
            return out
        }
    }
}

/// Log lines gathered and written to standard error together by a thread of their own, every
/// 200 ms or once 32 KB wait: one write a request cost a fifth of the time of serving a
/// thumbnail, and a write where the line is made would block an event loop or the cooperative
/// pool whenever standard error is a pipe that is slow to drain. Past `limit` bytes waiting
/// (standard error not read at all) lines are dropped and counted, and the count is logged.
public final class LogWriter: Sendable {
    static let shared = LogWriter(sink: { FileHandle.standardError.write($0) }, flushing: true)
    private let lock = Mutex((lines: Data(), dropped: 0))
    private let due = DispatchSemaphore(value: 0)
    /// Where gathered lines go.
    private let sink: @Sendable (Data) -> Void
    let batch: Int
    let limit: Int

    /// `flushing`: a thread of its own writes what is gathered; otherwise only `flush` does (tests).
    init(batch: Int = 32 << 10, limit: Int = 8 << 20, sink: @escaping @Sendable (Data) -> Void, flushing: Bool) {
        self.batch = batch
        self.limit = limit
        self.sink = sink
        guard flushing else { return }
        BlockingPool.dedicated(name: "molshot-log") { [self] in
            while true {
                _ = due.wait(timeout: .now() + 0.2)
                flush()
            }
        }
    }

    func write(_ line: String) {
        let (limit, batch) = (self.limit, self.batch)
        let full: Bool = lock.withLock { waiting in
            guard waiting.lines.count + line.utf8.count <= limit else {
                waiting.dropped += 1
                return false
            }
            let before = waiting.lines.count
            waiting.lines.append(contentsOf: line.utf8)
            return before < batch && waiting.lines.count >= batch
        }
        if full { due.signal() }
    }

    /// Writes what is gathered (at shutdown).
    public static func flushAll() { shared.flush() }

    func flush() {
        let batch = self.batch
        let (pending, dropped): (Data, Int) = lock.withLock { waiting in
            defer { waiting = (Data(capacity: batch * 2), 0) }
            return waiting
        }
        if !pending.isEmpty { sink(pending) }
        if dropped > 0 { sink(Data("error: \(dropped) log lines dropped: standard error was not read\n".utf8)) }
    }
}
