import Glibc
import TidingsBase
import TidingsCrypto
import TidingsServer

/// Remote notifications: what a Web Push message costs. In this process,
/// `WebPushSubscriber.decrypt` of a typical APNs payload and of the largest
/// (3,993 bytes, a 4,096-byte body), beside `WebPushSender.encrypt` (what a
/// sender pays: a new key pair, ECDH, HKDF, AES-GCM). Over `tidings serve`'s
/// socket, the `push.receive` one app sustains with the rate limit raised,
/// one after another from a front-end connection, beside the plain
/// `notifications.deliver` of the same payload measured in the same run,
/// with the server's CPU per call (`ProcessCPU`); in process and, one row,
/// isolated. One client shares CPU `ServerBenchmark.oneClientCPU` with the
/// server and its workers, as in `CycleBenchmark`.
struct PushBenchmark {
    /// The built executables and libraries (`tidings`, NoOp).
    let products: Products
    /// The temporary directory the servers' sockets, states and logs go in.
    let workspace: Workspace
    /// The extension directory the server reads (NoOp alone).
    let extensions: String
    /// Seconds each measurement lasts, after a warm-up of a tenth of it.
    let seconds: Double

    /// The encrypted bodies each server's pushes cycle through, encrypted before timing.
    static let poolSize = 64
    /// The largest plaintext whose body (86-byte header, 16-byte tag, 1-byte delimiter) is within Web Push's 4,096 bytes.
    static let largestPlaintext = HostService.pushMessageLimit - 103
    /// The distributor the front end reports.
    static let distributor = "org.unifiedpush.Distributor.bench"

    /// The crypto in process, then the socket: push and deliver in process, push isolated.
    func measure() throws(BenchmarkFailure) -> PushResult {
        let typical = Array(ServerBenchmark.payload(thread: "push").utf8)
        let largest = try Self.padded(typical, to: Self.largestPlaintext)
        var crypto: [PushCryptoResult] = []
        let subscriber = try Self.crypto { () throws(CryptoError) in try WebPushSubscriber.generate() }
        for (size, plaintext) in [("typical", typical), ("largest", largest)] {
            Progress.say("Measuring Web Push encryption and decryption of \(plaintext.count) bytes in process")
            let body = try Self.encrypt(plaintext, for: subscriber)
            crypto.append(try time(key: "encrypt-\(size)", operation: "encrypt", plaintext: plaintext.count, body: body.count) {
                () throws(CryptoError) in _ = try Self.encryptOnce(plaintext, for: subscriber)
            })
            crypto.append(try time(key: "decrypt-\(size)", operation: "decrypt", plaintext: plaintext.count, body: body.count) {
                () throws(CryptoError) in _ = try subscriber.decrypt(body)
            })
        }
        var socket: [PushSocketResult] = []
        let limits = ["--push-burst", "1000000", "--push-rate", "1000000"]
        do {
            let server = try ServerProcess(products.tidings, arguments(name: "push-in-process", isolation: "in-process") + limits,
                                           environment: ["HOME=\(workspace.path)"], log: workspace.file("push-in-process.log"),
                                           socket: workspace.file("push-in-process.sock"))
            defer { server.stop() }
            let client = try RoundTripClient(path: workspace.file("push-in-process.sock"), request: [10])
            let pushes = try register(client, payload: typical, log: "push-in-process")
            let payload = String(decoding: typical, as: UTF8.self)
            Progress.say("Measuring notifications.deliver (presentation) over the socket, in process, 1 client")
            socket.append(try run(key: "deliver-presentation-in-process", method: "notifications.deliver",
                                  answer: "presentation", isolation: "in-process", client: client, server: server.pid) { number in
                ServerBenchmark.request(identifier: "d-\(number)", payload: payload, answer: "presentation")
            })
            Progress.say("Measuring notifications.deliver (whole delivery) over the socket, in process, 1 client")
            socket.append(try run(key: "deliver-delivery-in-process", method: "notifications.deliver",
                                  answer: "delivery", isolation: "in-process", client: client, server: server.pid) { number in
                ServerBenchmark.request(identifier: "w-\(number)", payload: payload, answer: "delivery")
            })
            Progress.say("Measuring push.receive without ids over the socket, in process, 1 client")
            socket.append(try run(key: "push-no-id-in-process", method: "push.receive", answer: "delivery", isolation: "in-process",
                                  client: client, server: server.pid, request: pushes.withoutID))
            try fillIDs(client, pushes)
            Progress.say("Measuring push.receive over the socket, in process, 1 client")
            socket.append(try run(key: "push-in-process", method: "push.receive", answer: "delivery", isolation: "in-process",
                                  client: client, server: server.pid, request: pushes.withID))
            try Self.check(client.roundTrip(sending: pushes.withID(-2)), "a push.receive after the timed ones")
        }
        do {
            let server = try ServerProcess(products.tidings, arguments(name: "push-isolated", isolation: nil) + limits,
                                           environment: ["HOME=\(workspace.path)"], log: workspace.file("push-isolated.log"),
                                           socket: workspace.file("push-isolated.sock"))
            defer { server.stop() }
            let client = try RoundTripClient(path: workspace.file("push-isolated.sock"), request: [10])
            let pushes = try register(client, payload: typical, log: "push-isolated")
            try fillIDs(client, pushes)
            Progress.say("Measuring push.receive over the socket, isolated, 1 client")
            socket.append(try run(key: "push-isolated", method: "push.receive", answer: "delivery", isolation: "process",
                                  client: client, server: server.pid, request: pushes.withID))
            try Self.check(client.roundTrip(sending: pushes.withID(-2)), "a push.receive after the timed ones")
        }
        let defaults = PushSettings()
        return PushResult(seconds: seconds, crypto: crypto, socket: socket, defaultBurst: defaults.burst, defaultRate: defaults.rate)
    }

    /// `tidings serve`'s arguments for the server `name` (its socket, state
    /// and log named after it); `isolation` nil is the default mode.
    private func arguments(name: String, isolation: String?) -> [String] {
        ["serve", "--socket", workspace.file("\(name).sock"), "--state", workspace.file("\(name)-state"),
         "--extensions", extensions] + (isolation.map { ["--isolation", $0] } ?? [])
    }

    /// The `push.receive` requests of a registration, by number: a pool body each.
    struct Pushes {
        /// The request with the id `p-NUMBER`: its id remembered, the registrations file rewritten.
        let withID: @Sendable (Int) -> [UInt8]
        /// The request without an id: never taken for a replay, nothing remembered.
        let withoutID: @Sendable (Int) -> [UInt8]
    }

    /// Pushes as many messages with ids of their own (`p--10`, `p--11`, …)
    /// as a registration remembers, untimed, so that the timed pushes find
    /// its ids at their bound, as a registration that has had pushes for a while.
    private func fillIDs(_ client: RoundTripClient, _ pushes: Pushes) throws(BenchmarkFailure) {
        Progress.say("Filling the registration's \(PushMessageIDs.defaultLimit) remembered ids")
        for number in 0..<PushMessageIDs.defaultLimit {
            guard client.timedRoundTrip(sending: pushes.withID(-10 - number)) != nil else {
                throw BenchmarkFailure("The connection to the server was lost while filling the ids.")
            }
        }
    }

    /// Registers `BundleFarm.app` for push as a front end does
    /// (`push.register`, `push.distributor`, `push.endpoint`), encrypts a
    /// pool of `payload` for its keys, checks one push is delivered, and
    /// returns the `push.receive` requests.
    private func register(_ client: RoundTripClient, payload: [UInt8],
                          log: String) throws(BenchmarkFailure) -> Pushes {
        let answer = client.roundTrip(sending: Self.call("push.register", #"{"app":"\#(BundleFarm.app)"}"#)) ?? []
        let result = (try? JSON.parse(Array(answer.dropLast())))?["result"]
        guard let token = result?["token"]?.stringValue, let key = result?["publicKey"]?.stringValue.flatMap(Base64.decodeURL),
              let auth = result?["auth"]?.stringValue.flatMap(Base64.decodeURL) else {
            throw BenchmarkFailure("push.register did not answer a registration (see \(workspace.file("\(log).log"))): "
                + String(decoding: answer.prefix(300), as: UTF8.self))
        }
        try Self.check(client.roundTrip(sending: Self.call("push.distributor", #"{"name":"\#(Self.distributor)"}"#)), "push.distributor")
        try Self.check(client.roundTrip(sending: Self.call("push.endpoint", #"{"token":"\#(token)","endpoint":"https://push.example/\#(token)"}"#)),
                       "push.endpoint")
        var prefixes: [[UInt8]] = []
        for _ in 0..<Self.poolSize {
            let body = try Self.crypto { () throws(CryptoError) in try WebPushSender.encrypt(payload, to: key, authSecret: auth) }
            prefixes.append(Array(#"{"jsonrpc":"2.0","id":1,"method":"push.receive","params":{"token":"\#(token)","message":"\#(Base64.encode(body))""#.utf8))
        }
        let pool = prefixes
        let pushes = Pushes(withID: { number in
            pool[(number % Self.poolSize + Self.poolSize) % Self.poolSize] + Array(",\"id\":\"p-\(number)\"}}\n".utf8)
        }, withoutID: { number in
            pool[(number % Self.poolSize + Self.poolSize) % Self.poolSize] + Array("}}\n".utf8)
        })
        let first = client.roundTrip(sending: pushes.withID(-1)) ?? []
        try Self.check(first, "the first push.receive")
        guard String(decoding: first, as: UTF8.self).contains(#""delivered":true"#) else {
            throw BenchmarkFailure("push.receive did not deliver: " + String(decoding: first.prefix(300), as: UTF8.self))
        }
        return pushes
    }

    /// Round trips of `request(0)`, `request(1)`, … on `client`, one after
    /// another, for `seconds` after a warm-up; the client shares one core
    /// with `server` and its workers; the server's CPU read across the timed part.
    private func run(key: String, method: String, answer: String, isolation: String, client: RoundTripClient, server: pid_t,
                     request: (Int) -> [UInt8]) throws(BenchmarkFailure) -> PushSocketResult {
        let pin = CoreAffinity.pin(processTreeOf: server, to: ServerBenchmark.oneClientCPU)
        defer { pin.undo() }
        let previous = CoreAffinity.current()
        try CoreAffinity.pin(to: ServerBenchmark.oneClientCPU)
        defer { if let previous { CoreAffinity.restore(previous) } }
        let warmUpEnds = MonotonicClock.deadline(after: seconds / 10)
        let ends = MonotonicClock.deadline(after: seconds / 10 + seconds)
        var samples: [Double] = []
        samples.reserveCapacity(1 << 16)
        var answerBytes = 0
        var cpuBefore: Double?
        var number = 0
        while true {
            let start = MonotonicClock.now()
            guard start < ends else { break }
            if cpuBefore == nil, start >= warmUpEnds { cpuBefore = ProcessCPU.microseconds(ofTreeOf: server) }
            guard let length = client.timedRoundTrip(sending: request(number)) else {
                throw BenchmarkFailure("The connection to the server was lost during \(key).")
            }
            number += 1
            if start >= warmUpEnds {
                samples.append(Double(MonotonicClock.now() - start) / 1e3)
                answerBytes = max(answerBytes, length)
            }
        }
        let cpuAfter = ProcessCPU.microseconds(ofTreeOf: server)
        guard !samples.isEmpty else { throw BenchmarkFailure("No round trip of \(key) completed.") }
        return PushSocketResult(key: key, method: method, answer: answer, isolation: isolation,
                                perSecond: Double(samples.count) / seconds, medianMicroseconds: Statistics.median(samples),
                                p99Microseconds: Statistics.percentile(samples, 0.99), answerBytes: answerBytes,
                                serverMicrosecondsPerCall: max(cpuAfter - (cpuBefore ?? cpuAfter), 0) / Double(samples.count))
    }

    /// `operation` timed call by call for `seconds` after a warm-up: median and p99 µs.
    private func time(key: String, operation: String, plaintext: Int, body: Int,
                      _ call: () throws(CryptoError) -> Void) throws(BenchmarkFailure) -> PushCryptoResult {
        let warmUpEnds = MonotonicClock.deadline(after: seconds / 10)
        let ends = MonotonicClock.deadline(after: seconds / 10 + seconds)
        var samples: [Double] = []
        samples.reserveCapacity(1 << 16)
        while true {
            let start = MonotonicClock.now()
            guard start < ends else { break }
            try Self.crypto(call)
            if start >= warmUpEnds { samples.append(Double(MonotonicClock.now() - start) / 1e3) }
        }
        guard !samples.isEmpty else { throw BenchmarkFailure("No \(operation) completed.") }
        return PushCryptoResult(key: key, operation: operation, plaintextBytes: plaintext, bodyBytes: body, count: samples.count,
                                medianMicroseconds: Statistics.median(samples), p99Microseconds: Statistics.percentile(samples, 0.99))
    }

    /// `plaintext` encrypted for `subscriber`, checked to decrypt back to it.
    private static func encrypt(_ plaintext: [UInt8], for subscriber: WebPushSubscriber) throws(BenchmarkFailure) -> [UInt8] {
        let body = try crypto { () throws(CryptoError) in try encryptOnce(plaintext, for: subscriber) }
        guard try crypto({ () throws(CryptoError) in try subscriber.decrypt(body) }) == plaintext else {
            throw BenchmarkFailure("A Web Push body did not decrypt to its plaintext.")
        }
        return body
    }

    /// What a sender does for one message to `subscriber`: a new key pair and salt, then RFC 8291.
    private static func encryptOnce(_ plaintext: [UInt8], for subscriber: WebPushSubscriber) throws(CryptoError) -> [UInt8] {
        try WebPushSender.encrypt(plaintext, to: subscriber.keys.publicKey, authSecret: subscriber.authSecret)
    }

    /// What `body` returns, its crypto error a benchmark failure.
    private static func crypto<T>(_ body: () throws(CryptoError) -> T) throws(BenchmarkFailure) -> T {
        do throws(CryptoError) {
            return try body()
        } catch {
            throw BenchmarkFailure("Web Push: \(error.description)")
        }
    }

    /// `payload` (a JSON object) with a member "pad" of x's making it `size` bytes.
    private static func padded(_ payload: [UInt8], to size: Int) throws(BenchmarkFailure) -> [UInt8] {
        let room = size - payload.count - #","pad":"""#.utf8.count
        guard room >= 0, payload.last == UInt8(ascii: "}") else { throw BenchmarkFailure("The sample payload is over \(size) bytes.") }
        return payload.dropLast() + Array(#","pad":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: room) + Array(#""}"#.utf8)
    }

    /// The request line calling `method` with `params` (a JSON object's text).
    private static func call(_ method: String, _ params: String) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#.utf8) + [10]
    }

    /// Throws unless `answer` is a result.
    private static func check(_ answer: [UInt8]?, _ what: String) throws(BenchmarkFailure) {
        let text = String(decoding: (answer ?? []).prefix(300), as: UTF8.self)
        guard let answer, !answer.isEmpty, !text.prefix(64).contains(#""error""#) else {
            throw BenchmarkFailure("\(what) failed: \(text)")
        }
    }
}

/// What the push measurement found.
struct PushResult {
    /// Seconds each measurement lasted.
    var seconds: Double
    /// Encryption and decryption in this process, by payload size.
    var crypto: [PushCryptoResult]
    /// The round trips over the socket: the deliveries (the baseline) first, then the pushes.
    var socket: [PushSocketResult]
    /// The pushes an app may receive at once by default (`--push-burst`).
    var defaultBurst: Int
    /// The pushes an app may receive a second by default (`--push-rate`).
    var defaultRate: Double
}

/// One encryption or decryption measurement, in this process.
struct PushCryptoResult {
    /// "decrypt-typical", "encrypt-largest", …
    var key: String
    /// "encrypt" or "decrypt".
    var operation: String
    /// The payload's size.
    var plaintextBytes: Int
    /// The encrypted body's size.
    var bodyBytes: Int
    /// The calls timed.
    var count: Int
    /// The median call, in microseconds.
    var medianMicroseconds: Double
    /// The 99th percentile call, in microseconds.
    var p99Microseconds: Double
}

/// One kind of round trip over the socket, one client.
struct PushSocketResult {
    /// "push-in-process", "deliver-presentation-in-process", …
    var key: String
    /// "push.receive" or "notifications.deliver".
    var method: String
    /// What the answer holds: "presentation" or "delivery" (push.receive's is the whole delivery).
    var answer: String
    /// "in-process" or "process".
    var isolation: String
    /// Round trips a second.
    var perSecond: Double
    /// The median round trip, in microseconds.
    var medianMicroseconds: Double
    /// The 99th percentile round trip, in microseconds.
    var p99Microseconds: Double
    /// The longest answer's size, newline included.
    var answerBytes: Int
    /// The server's CPU (its threads' and its workers') per round trip.
    var serverMicrosecondsPerCall: Double
}
