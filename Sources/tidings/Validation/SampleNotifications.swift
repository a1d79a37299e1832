import TidingsBase

/// The notifications `tidings validate` delivers: each payload shape a front
/// end may send, then random ones drawn from a seeded generator, so that a
/// run can be repeated exactly (`--seed`).
struct SampleNotifications {
    /// A payload and what it is, for the report.
    struct Sample {
        var shape: String
        var payload: JSON
        /// The directory its attachments' relative paths start from (the run's scratch directory when nil).
        var directory: String? = nil
    }

    /// SplitMix64: small, fast, and the same sequence for a seed everywhere.
    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

        mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
    }

    /// Text that breaks careless code: scripts, combining marks, emoji with joiners, bidirectional text, controls.
    static let awkwardTexts = [
        "", " ", "Ünïcödé façade", "日本語のテキスト", "مرحبا بالعالم", "שלום עולם", "e\u{301}\u{302}\u{303}",
        "👩‍👩‍👧‍👦🏳️‍🌈", "\u{202E}reversed\u{202C}", "tab\tnew\nline", "%s %n %@ {0} \\ \" '", "<b>&amp;</b>",
        "\u{200B}\u{FEFF}zero width", String(repeating: "long ", count: 400),
    ]

    /// The payloads for an extension serving `category` ("" for a service
    /// extension: remote notifications that may be changed), attaching files of `attachments`.
    static func make(category: String, attachments: [String], seed: UInt64, randomCount: Int = 8) -> [Sample] {
        func payload(title: String, subtitle: String = "", body: String, thread: String? = nil,
                     userInfo: [(String, JSON)] = [], files: [String] = []) -> JSON {
            guard !category.isEmpty else {
                // A service extension's: a remote notification that may be changed.
                var aps: [(String, JSON)] = [("alert", .object([("title", .string(title)), ("subtitle", .string(subtitle)),
                                                                 ("body", .string(body))])), ("mutable-content", .integer(1))]
                if let thread { aps.append(("thread-id", .string(thread))) }
                return .object([("aps", .object(aps))] + userInfo)
            }
            // A content extension's: a request, which can attach files.
            var content: [(String, JSON)] = [("title", .string(title)), ("subtitle", .string(subtitle)), ("body", .string(body)),
                                             ("categoryIdentifier", .string(category)), ("userInfo", .object(userInfo))]
            if let thread { content.append(("threadIdentifier", .string(thread))) }
            if !files.isEmpty {
                content.append(("attachments", .array(files.enumerated().map { index, path in
                    .object([("identifier", .string("attachment-\(index)")), ("path", .string(path))])
                })))
            }
            return .object([("content", .object(content))])
        }
        var samples = [
            Sample(shape: "title and body", payload: payload(title: "Title", body: "Body")),
            Sample(shape: "title only", payload: payload(title: "Only a title", body: "")),
            Sample(shape: "body only", payload: payload(title: "", body: "Only a body")),
            Sample(shape: "subtitle", payload: payload(title: "Title", subtitle: "Subtitle", body: "Body")),
            Sample(shape: "Unicode", payload: payload(title: awkwardTexts[5], subtitle: awkwardTexts[6], body: awkwardTexts[7])),
            Sample(shape: "long fields", payload: payload(title: String(repeating: "T", count: 1000), body: awkwardTexts.last!)),
            Sample(shape: "many userInfo entries", payload: payload(title: "userInfo", body: "50 entries",
                userInfo: (0..<50).map { ("key\($0)", $0.isMultiple(of: 2) ? .string("value \($0)") : .integer(Int64($0))) }
                    + [("nested", .object([("array", .array([.integer(1), .string("two"), .null, .bool(true)]))]))])),
            Sample(shape: "\(attachments.count) attachments", payload: payload(title: "Attachments", body: "Many", files: attachments)),
        ]
        var generator = Generator(state: seed)
        for number in 0..<randomCount {
            let files = (0..<generator.below(attachments.count + 1)).map { _ in generator.pick(attachments) }
            let distinct = Array(Set(files)).sorted()
            let title = generator.pick(awkwardTexts)
            let subtitle = generator.pick(awkwardTexts)
            let body = generator.pick(awkwardTexts)
            // A notification with no text at all is refused (Apple's 1401): a blank body keeps it awkward and valid.
            let blank = title.isEmpty && subtitle.isEmpty && body.isEmpty
            samples.append(Sample(shape: "random \(number + 1)", payload: payload(
                title: title, subtitle: subtitle, body: blank ? " " : body,
                thread: generator.below(2) == 0 ? nil : generator.pick(awkwardTexts),
                userInfo: (0..<generator.below(6)).map { ("random\($0)", .string(generator.pick(awkwardTexts))) },
                files: distinct)))
        }
        return samples
    }

    /// Writes the sample attachments into `scratch`: small images of each kind the store recognises; their file names.
    static func writeAttachments(into scratch: String) -> [String] {
        let png: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
            0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00,
            0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x00, 0x02, 0x00, 0x00, 0x05, 0x00, 0x01, 0x7A, 0x5E,
            0xAB, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        let gif: [UInt8] = Array("GIF89a".utf8) + [
            0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x21, 0xF9, 0x04, 0x01, 0x00,
            0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]
        var names: [String] = []
        for number in 0..<10 {
            let (name, bytes) = number.isMultiple(of: 2) ? ("image-\(number).png", png) : ("image-\(number).gif", gif)
            if (try? FileSystem.writeFileAtomically(Path.join(scratch, name), bytes)) != nil { names.append(name) }
        }
        return names
    }
}
