import TidingsABI
import TidingsBase
import TidingsRuntime
import TidingsManifest
import TidingsProtocol

// The binary form of what a `WorkerMessage` carries: notifications and their
// content, attachments, JSON values, host calls, service answers, attachment
// requests and element events, each field in order (`ByteWriter`'s varints,
// strings, doubles); the messages themselves are in WorkerMessageEncoding.swift.

extension UserNotification {
    func encode(into writer: inout ByteWriter) {
        writer.write(string: identifier)
        writer.write(double: date)
        content.encode(into: &writer)
        // The trigger as its JSON, read back with the rules that made it.
        writer.write(optional: trigger) { $1.json.encode(into: &$0) }
    }

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let identifier = try reader.readString()
        let date = try reader.readDouble()
        let content = try NotificationContent(from: &reader)
        var trigger: NotificationTrigger?
        if try reader.readBool() {
            let json = try JSON(from: &reader, depth: 0)
            guard let read = NotificationTrigger.read(json, allowingPush: true).trigger else {
                throw ByteReader.Malformed(description: "a notification's trigger that is not one")
            }
            trigger = read
        }
        self.init(identifier: identifier, date: date, content: content, trigger: trigger)
    }
}

extension NotificationContent {
    func encode(into writer: inout ByteWriter) {
        for text in [title, subtitle, body, threadIdentifier, categoryIdentifier] { writer.write(string: text) }
        writer.write(optional: badge) { $0.write(int64: $1) }
        writer.write(optional: sound) { $0.write(string: $1) }
        writer.write(optional: targetContentIdentifier) { $0.write(string: $1) }
        writer.write(byte: UInt8(truncatingIfNeeded: interruptionLevel.rawValue))
        writer.write(double: relevanceScore)
        writer.write(bool: mutableContent)
        writer.write(bool: criticalSound)
        writer.write(optional: soundVolume) { $0.write(double: $1) }
        writer.write(string: launchImageName)
        writer.write(string: summaryArgument)
        writer.write(count: summaryArgumentCount)
        writer.write(optional: filterCriteria) { $0.write(string: $1) }
        writer.write(bool: contentAvailable)
        writer.write(bool: isLocal)
        writer.write(array: userInfo) { writer, entry in
            writer.write(string: entry.0)
            entry.1.encode(into: &writer)
        }
        writer.write(array: attachments) { $1.encode(into: &$0) }
    }

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init()
        title = try reader.readString()
        subtitle = try reader.readString()
        body = try reader.readString()
        threadIdentifier = try reader.readString()
        categoryIdentifier = try reader.readString()
        badge = try reader.readBool() ? try reader.readInt64() : nil
        sound = try reader.readOptionalString()
        targetContentIdentifier = try reader.readOptionalString()
        interruptionLevel = InterruptionLevel(rawValue: Int32(try reader.readByte())) ?? .active
        relevanceScore = try reader.readDouble()
        mutableContent = try reader.readBool()
        criticalSound = try reader.readBool()
        soundVolume = try reader.readBool() ? try reader.readDouble() : nil
        launchImageName = try reader.readString()
        summaryArgument = try reader.readString()
        summaryArgumentCount = try reader.readCount(atMost: Int(Int32.max))
        filterCriteria = try reader.readOptionalString()
        contentAvailable = try reader.readBool()
        isLocal = try reader.readBool()
        for _ in 0..<(try reader.readCount(atMost: 1 << 16)) {
            userInfo.append((try reader.readString(), try JSON(from: &reader, depth: 0)))
        }
        for _ in 0..<(try reader.readCount(atMost: 1 << 12)) {
            attachments.append(try NotificationAttachment(from: &reader))
        }
    }
}

extension NotificationAttachment {
    func encode(into writer: inout ByteWriter) {
        writer.write(string: identifier)
        writer.write(string: type)
        writer.write(string: path)
        writer.write(varint: size)
        thumbnail.encode(into: &writer)
    }

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init(identifier: try reader.readString(), type: try reader.readString(), path: try reader.readString(),
                  size: try reader.readVarint(), thumbnail: try ThumbnailOptions(from: &reader))
    }
}

extension ThumbnailOptions {
    func encode(into writer: inout ByteWriter) {
        writer.write(bool: hidden)
        writer.write(optional: clippingRect) { writer, rect in
            for value in [rect.x, rect.y, rect.width, rect.height] { writer.write(double: value) }
        }
        writer.write(optional: time) { $0.write(double: $1) }
    }

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let hidden = try reader.readBool()
        var clipping: ClippingRect?
        if try reader.readBool() {
            clipping = ClippingRect(x: try reader.readDouble(), y: try reader.readDouble(), width: try reader.readDouble(),
                                    height: try reader.readDouble())
        }
        self.init(hidden: hidden, clippingRect: clipping, time: try reader.readBool() ? try reader.readDouble() : nil)
    }
}

extension JSON {
    func encode(into writer: inout ByteWriter) {
        switch self {
        case .null: writer.write(byte: 0)
        case .bool(let value): writer.write(byte: value ? 2 : 1)
        case .integer(let value):
            writer.write(byte: 3)
            writer.write(int64: value)
        case .double(let value):
            writer.write(byte: 4)
            writer.write(double: value)
        case .string(let value):
            writer.write(byte: 5)
            writer.write(string: value)
        case .array(let values):
            writer.write(byte: 6)
            writer.write(array: values) { $1.encode(into: &$0) }
        case .object(let members):
            writer.write(byte: 7)
            writer.write(array: members) { writer, member in
                writer.write(string: member.0)
                member.1.encode(into: &writer)
            }
        }
    }

    init(from reader: inout ByteReader, depth: Int) throws(ByteReader.Malformed) {
        guard depth < 256 else { throw ByteReader.Malformed(description: "JSON nested too deep") }
        switch try reader.readByte() {
        case 0: self = .null
        case 1: self = .bool(false)
        case 2: self = .bool(true)
        case 3: self = .integer(try reader.readInt64())
        case 4: self = .double(try reader.readDouble())
        case 5: self = .string(try reader.readString())
        case 6:
            var values: [JSON] = []
            for _ in 0..<(try reader.readCount(atMost: 1 << 20)) { values.append(try JSON(from: &reader, depth: depth + 1)) }
            self = .array(values)
        case 7:
            var members: [(String, JSON)] = []
            for _ in 0..<(try reader.readCount(atMost: 1 << 20)) {
                members.append((try reader.readString(), try JSON(from: &reader, depth: depth + 1)))
            }
            self = .object(members)
        default: throw ByteReader.Malformed(description: "an unknown JSON value")
        }
    }
}

extension ByteWriter {
    /// Writes `actions`, each with its identifier, title, options and text input.
    mutating func write(actions: [NotificationAction]) {
        write(array: actions) { writer, action in
            writer.write(string: action.identifier)
            writer.write(string: action.title)
            writer.write(varint: UInt64(action.options.rawValue))
            writer.write(optional: action.textInput) { writer, input in
                writer.write(string: input.buttonTitle)
                writer.write(string: input.placeholder)
            }
        }
    }

    /// Writes a call rate, or its absence.
    mutating func write(callRate: CallRate?) {
        write(optional: callRate) { writer, rate in
            writer.write(double: rate.perSecond)
            writer.write(double: rate.burst)
        }
    }
}

extension ByteReader {
    /// Reads at most `limit` actions written by `write(actions:)`.
    mutating func readActions(atMost limit: Int) throws(ByteReader.Malformed) -> [NotificationAction] {
        var actions: [NotificationAction] = []
        for _ in 0..<(try readCount(atMost: limit)) {
            let identifier = try readString()
            let title = try readString()
            let options = NotificationAction.Options(rawValue: UInt32(truncatingIfNeeded: try readVarint()))
            var input: NotificationAction.TextInput?
            if try readBool() {
                input = .init(buttonTitle: try readString(), placeholder: try readString())
            }
            actions.append(NotificationAction(identifier: identifier, title: title, options: options, textInput: input))
        }
        return actions
    }

    /// Reads a call rate written by `write(callRate:)`.
    mutating func readCallRate() throws(ByteReader.Malformed) -> CallRate? {
        try readBool() ? CallRate(perSecond: try readDouble(), burst: try readDouble()) : nil
    }
}

extension HostCall {
    func encode(into writer: inout ByteWriter) {
        switch self {
        case let .log(level, message):
            writer.write(byte: 0)
            writer.write(byte: UInt8(truncatingIfNeeded: level.rawValue))
            writer.write(string: message)
        case let .setText(element, text):
            writer.write(byte: 1)
            writer.write(string: element)
            writer.write(string: text)
        case let .setTextColor(element, color):
            writer.write(byte: 2)
            writer.write(string: element)
            writer.write(varint: UInt64(color))
        case let .setImage(element, attachment):
            writer.write(byte: 3)
            writer.write(string: element)
            writer.write(optional: attachment) { $0.write(string: $1) }
        case let .setHidden(element, hidden):
            writer.write(byte: 4)
            writer.write(string: element)
            writer.write(bool: hidden)
        case .setPreferredContentHeight(let height):
            writer.write(byte: 5)
            writer.write(double: height)
        case .setTitle(let title):
            writer.write(byte: 6)
            writer.write(optional: title) { $0.write(string: $1) }
        case .setActions(let actions):
            writer.write(byte: 7)
            writer.write(actions: actions)
        case .setMediaButton(let button):
            writer.write(byte: 8)
            writer.write(int64: Int64(button.type))
            writer.write(optional: button.frame) { writer, frame in
                for value in [frame.0, frame.1, frame.2, frame.3] { writer.write(double: value) }
            }
            writer.write(optional: button.tint) { $0.write(varint: UInt64($1.rgba)) }
        case .mediaPlayingStarted: writer.write(byte: 9)
        case .mediaPlayingPaused: writer.write(byte: 10)
        case .performDefaultAction: writer.write(byte: 11)
        case .dismiss: writer.write(byte: 12)
        case .invalid(let sentence):
            writer.write(byte: 13)
            writer.write(string: sentence)
        case let .setEnabled(element, enabled):
            writer.write(byte: 14)
            writer.write(string: element)
            writer.write(bool: enabled)
        case .requestTextInput(let request):
            writer.write(byte: 15)
            writer.write(string: request.buttonTitle)
            writer.write(string: request.placeholder)
        case .endTextInput: writer.write(byte: 16)
        }
    }

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        switch try reader.readByte() {
        case 0:
            let level = LogLine.Level(rawValue: Int32(try reader.readByte())) ?? .info
            self = .log(level, try reader.readString())
        case 1: self = .setText(element: try reader.readString(), text: try reader.readString())
        case 2: self = .setTextColor(element: try reader.readString(), color: UInt32(truncatingIfNeeded: try reader.readVarint()))
        case 3: self = .setImage(element: try reader.readString(), attachment: try reader.readOptionalString())
        case 4: self = .setHidden(element: try reader.readString(), hidden: try reader.readBool())
        case 5: self = .setPreferredContentHeight(try reader.readDouble())
        case 6: self = .setTitle(try reader.readOptionalString())
        case 7: self = .setActions(try reader.readActions(atMost: HostLimits.actions))
        case 8:
            let type = Int32(truncatingIfNeeded: try reader.readInt64())
            var frame: (Double, Double, Double, Double)?
            if try reader.readBool() {
                frame = (try reader.readDouble(), try reader.readDouble(), try reader.readDouble(), try reader.readDouble())
            }
            let tint = try reader.readBool() ? Color(rgba: UInt32(truncatingIfNeeded: try reader.readVarint())) : nil
            self = .setMediaButton(InstanceContext.MediaButton(type: type, frame: frame, tint: tint))
        case 9: self = .mediaPlayingStarted
        case 10: self = .mediaPlayingPaused
        case 11: self = .performDefaultAction
        case 12: self = .dismiss
        case 13: self = .invalid(try reader.readString())
        case 14: self = .setEnabled(element: try reader.readString(), enabled: try reader.readBool())
        case 15: self = .requestTextInput(TextInputRequest(buttonTitle: try reader.readString(), placeholder: try reader.readString()))
        case 16: self = .endTextInput
        default: throw ByteReader.Malformed(description: "an unknown host call")
        }
    }
}

extension ServiceAnswer {
    func encode(into writer: inout ByteWriter) {
        content.encode(into: &writer)
        writer.write(array: attachmentIdentifiers) { $0.write(string: $1) }
        writer.write(array: problems) { $1.encode(into: &$0) }
    }

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let content = try NotificationContent(from: &reader)
        var identifiers: [String] = []
        for _ in 0..<(try reader.readCount(atMost: 1 << 12)) { identifiers.append(try reader.readString()) }
        var problems: [Diagnostic] = []
        for _ in 0..<(try reader.readCount(atMost: 1 << 12)) { problems.append(try Diagnostic(from: &reader)) }
        self.init(content: content, attachmentIdentifiers: identifiers, problems: problems)
    }
}

extension AttachmentRequest {
    func encode(into writer: inout ByteWriter) {
        writer.write(string: identifier)
        writer.write(string: url)
        writer.write(optional: typeHint) { $0.write(string: $1) }
        thumbnail.encode(into: &writer)
    }

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init(identifier: try reader.readString(), url: try reader.readString(), typeHint: try reader.readOptionalString(),
                  thumbnail: try ThumbnailOptions(from: &reader))
    }
}

extension ElementEvent {
    /// Reads an event `WorkerMessage.encoded` wrote: its kind, element and
    /// text, each as its kind needs, and within the limits the host admits
    /// (an event that breaks them is malformed).
    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let kind = Int32(try reader.readByte())
        let element = try reader.readOptionalString()
        let text = try reader.readOptionalString()
        switch (kind, element, text) {
        case (TIDINGS_ELEMENT_EVENT_TAP, let element?, nil): self = .tap(element: element)
        case (TIDINGS_ELEMENT_EVENT_SUBMIT, let element?, let text?): self = .submit(element: element, text: text)
        case (TIDINGS_ELEMENT_EVENT_TEXT_INPUT, nil, let text?): self = .textInput(text: text)
        default: throw ByteReader.Malformed(description: "an element event of kind \(kind) with the wrong fields")
        }
        if let violation { throw ByteReader.Malformed(description: violation) }
    }
}
