import Core
import ArgumentParser
import Foundation
import LiveClient

/// Internal, for `bench/run live` (hidden from help): floods live sessions of a running
/// `molshot serve` with rotate events at a set rate and prints, per session, the frames it got
/// and the delay from each event shown to the frame showing it. A client in Swift with a writer
/// and a reader thread per session, so that the measuring costs the machine little.
struct MeasureLive: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure-live",
        abstract: "Flood live sessions and print frames and event-to-frame delays (for bench/run).",
        shouldDisplay: false
    )

    @Option(help: "The session URL, ws://127.0.0.1:PORT/v1/sessions?molecule=...") var url: String
    @Option var sessions = 1
    @Option var seconds = 3.0
    @Option(help: "Events a second, per session.") var rate = 500.0

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    func run() throws {
        let now = MeasureLive.now
        let clients = try (0..<sessions).map { _ -> WebSocketClient in
            let c = try WebSocketClient(url)
            guard (try c.receiveJSON())["type"] as? String == "session" else { throw ValidationError("no session message") }
            try c.send(text: #"{"type":"header","version":1,"viewport":{"width":512,"height":512}}"#)
            // The first frame, before the clock starts.
            _ = try c.receiveJSON()
            _ = try c.receive()
            return c
        }
        let total = Int(seconds * rate)
        // Lines made ahead: the writers only send.
        let lines = (1...total).map { String(format: #"{"t":%.4f,"type":"rotate","dx":3,"dy":1}"#, Double($0) / rate) }
        /// One session's send times and frame arrivals (its sender and receiver threads write them).
        struct Record { var sent: [Double]; var frames: [(arrival: Double, events: Int)] = [] }
        let records = (0..<sessions).map { _ in Locked(Record(sent: [Double](repeating: 0, count: total + 1))) }
        let group = DispatchGroup()
        let start = now()
        for (k, client) in clients.enumerated() {
            let record = records[k], rate = rate
            group.enter()
            group.enter()
            BlockingPool.dedicated(name: "molshot-send") {
                defer { group.leave() }
                for i in 1...total {
                    let due = start + Double(i - 1) / rate
                    let pause = due - MeasureLive.now()
                    if pause > 0 { Thread.sleep(forTimeInterval: pause) }
                    let t = MeasureLive.now()
                    record.withLock { $0.sent[i] = t }
                    try? client.send(text: lines[i - 1])
                }
            }
            BlockingPool.dedicated(name: "molshot-receive") {
                defer { group.leave() }
                while true {
                    guard let info = try? client.receiveJSON(), case .binary = try? client.receive() else { return }
                    let shown = info["events"] as? Int ?? 0
                    let t = MeasureLive.now()
                    record.withLock { $0.frames.append((t, shown)) }
                    if shown >= total { return }
                }
            }
        }
        group.wait()
        let elapsed = now() - start
        for (k, r) in records.map({ $0.withLock { $0 } }).enumerated() {
            // Each frame's delay from the last event it shows (that event was sent before it).
            let delays = r.frames.filter { $0.events >= 1 && $0.events <= total }.map { ($0.arrival - r.sent[$0.events]) * 1000 }
            let text = delays.map { String(format: "%.2f", $0) }.joined(separator: ",")
            print("session\t\(k)\tframes\t\(r.frames.count)\tseconds\t\(String(format: "%.4f", elapsed))\tdelays_ms\t\(text)")
        }
    }
}
