import TidingsABI
import TidingsBase
import TidingsRuntime
import TidingsManifest

// The binary form of `WorkerMessage` and of what it carries: a tag byte per
// case, then the fields in order (`ByteWriter`'s varints, strings, doubles).
// Both ends are the same `tidings` binary, so the form needs no more
// versioning than `WorkerMessage.version`; a malformed message is a
// protocol fault of the worker.

extension WorkerMessage {
    /// The message's bytes.
    package var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }

    /// The message in `bytes`.
    package init(decoding bytes: [UInt8]) throws(ByteReader.Malformed) {
        var reader = ByteReader(bytes)
        self = try Self(from: &reader)
        guard reader.isAtEnd else { throw ByteReader.Malformed(description: "bytes after the message") }
    }

    private func encode(into writer: inout ByteWriter) {
        switch self {
        case let .hello(version, bundle, sandbox, host):
            writer.write(byte: 0)
            writer.write(varint: UInt64(version))
            writer.write(string: bundle)
            sandbox.encode(into: &writer)
            writer.write(varint: UInt64(host.abiVersion))
            writer.write(callRate: host.callRate)
        case let .create(call, instance, mayOverrideTitle, service, callRate):
            writer.write(byte: 1)
            writer.write(varint: call)
            writer.write(varint: instance)
            writer.write(bool: mayOverrideTitle)
            writer.write(bool: service)
            writer.write(callRate: callRate)
        case let .receiveNotification(call, instance, notification, categoryActions):
            writer.write(byte: 2)
            writer.write(varint: call)
            writer.write(varint: instance)
            notification.encode(into: &writer)
            writer.write(actions: categoryActions)
        case let .receiveResponse(call, instance, notification, categoryActions, response, token, deadline):
            writer.write(byte: 3)
            writer.write(varint: call)
            writer.write(varint: instance)
            notification.encode(into: &writer)
            writer.write(actions: categoryActions)
            writer.write(string: response.actionIdentifier)
            writer.write(optional: response.userText) { $0.write(string: $1) }
            writer.write(varint: token)
            writer.write(varint: deadline)
        case let .receiveRequest(call, instance, request, token, deadline):
            writer.write(byte: 4)
            writer.write(varint: call)
            writer.write(varint: instance)
            request.encode(into: &writer)
            writer.write(varint: token)
            writer.write(varint: deadline)
        case let .timeWillExpire(call, instance): Self.write(5, call, instance, into: &writer)
        case let .mediaPlay(call, instance): Self.write(6, call, instance, into: &writer)
        case let .mediaPause(call, instance): Self.write(7, call, instance, into: &writer)
        case let .destroy(call, instance): Self.write(8, call, instance, into: &writer)
        case .attachmentMade(let result):
            writer.write(byte: 9)
            result.encode(into: &writer)
        case .attachmentOpened(let found):
            writer.write(byte: 10)
            writer.write(bool: found)
        case let .elementEvent(call, instance, event):
            Self.write(11, call, instance, into: &writer)
            writer.write(byte: UInt8(truncatingIfNeeded: event.kind))
            writer.write(optional: event.element) { $0.write(string: $1) }
            writer.write(optional: event.text) { $0.write(string: $1) }
        case let .ready(handlesResponses, handlesMedia, handlesElementEvents, sandbox):
            writer.write(byte: 20)
            writer.write(bool: handlesResponses)
            writer.write(bool: handlesMedia)
            writer.write(bool: handlesElementEvents)
            writer.write(array: sandbox) { writer, layer in
                writer.write(string: layer.name)
                writer.write(string: layer.status.rawValue)
                writer.write(string: layer.detail)
            }
        case .launchFailed(let diagnostic):
            writer.write(byte: 21)
            diagnostic.encode(into: &writer)
        case let .done(call, failure):
            writer.write(byte: 22)
            writer.write(varint: call)
            writer.write(optional: failure) { $1.encode(into: &$0) }
        case let .hostCall(instance, call):
            writer.write(byte: 23)
            writer.write(varint: instance)
            call.encode(into: &writer)
        case let .completeResponse(token, instance, option):
            writer.write(byte: 24)
            writer.write(varint: token)
            writer.write(optional: instance) { $0.write(varint: $1) }
            writer.write(int64: Int64(option))
        case let .completeRequest(token, instance, answer):
            writer.write(byte: 25)
            writer.write(varint: token)
            writer.write(optional: instance) { $0.write(varint: $1) }
            writer.write(optional: answer) { $1.encode(into: &$0) }
        case let .createAttachment(instance, attachment):
            writer.write(byte: 26)
            writer.write(varint: instance)
            attachment.encode(into: &writer)
        case .report(let diagnostic):
            writer.write(byte: 27)
            diagnostic.encode(into: &writer)
        case let .openAttachment(instance, identifier):
            writer.write(byte: 28)
            writer.write(varint: instance)
            writer.write(string: identifier)
        case .batch(let messages):
            writer.write(byte: 29)
            writer.write(array: messages) { $1.encode(into: &$0) }
        }
    }

    private static func write(_ tag: UInt8, _ call: UInt64, _ instance: UInt64, into writer: inout ByteWriter) {
        writer.write(byte: tag)
        writer.write(varint: call)
        writer.write(varint: instance)
    }

    /// The message at `reader`; `nested` inside a batch, which may hold no batch.
    private init(from reader: inout ByteReader, nested: Bool = false) throws(ByteReader.Malformed) {
        let tag = try reader.readByte()
        switch tag {
        case 0:
            let version = UInt32(truncatingIfNeeded: try reader.readVarint())
            let (bundle, sandbox) = (try reader.readString(), try WorkerSandboxSettings(from: &reader))
            // A worker of another version stops here, having read what every version sends first.
            let host = reader.isAtEnd && version != WorkerMessage.version
                ? WorkerHostTable(abiVersion: 1, callRate: nil)
                : WorkerHostTable(abiVersion: UInt32(truncatingIfNeeded: try reader.readVarint()),
                                  callRate: try reader.readCallRate())
            self = .hello(version: version, bundle: bundle, sandbox: sandbox, host: host)
        case 1:
            let (call, instance) = (try reader.readVarint(), try reader.readVarint())
            let (mayOverrideTitle, service) = (try reader.readBool(), try reader.readBool())
            self = .create(call: call, instance: instance, mayOverrideTitle: mayOverrideTitle, service: service,
                           callRate: try reader.readCallRate())
        case 2:
            self = .receiveNotification(call: try reader.readVarint(), instance: try reader.readVarint(),
                                        notification: try UserNotification(from: &reader),
                                        categoryActions: try reader.readActions(atMost: WorkerMessage.categoryActionLimit))
        case 3:
            let call = try reader.readVarint()
            let instance = try reader.readVarint()
            let notification = try UserNotification(from: &reader)
            let categoryActions = try reader.readActions(atMost: WorkerMessage.categoryActionLimit)
            let response = ResponseRequest(actionIdentifier: try reader.readString(), userText: try reader.readOptionalString())
            self = .receiveResponse(call: call, instance: instance, notification: notification,
                                    categoryActions: categoryActions, response: response,
                                    token: try reader.readVarint(), deadline: try reader.readVarint())
        case 4:
            self = .receiveRequest(call: try reader.readVarint(), instance: try reader.readVarint(),
                                   request: try UserNotification(from: &reader), token: try reader.readVarint(),
                                   deadline: try reader.readVarint())
        case 5: self = .timeWillExpire(call: try reader.readVarint(), instance: try reader.readVarint())
        case 6: self = .mediaPlay(call: try reader.readVarint(), instance: try reader.readVarint())
        case 7: self = .mediaPause(call: try reader.readVarint(), instance: try reader.readVarint())
        case 8: self = .destroy(call: try reader.readVarint(), instance: try reader.readVarint())
        case 9: self = .attachmentMade(try AttachmentResult(from: &reader))
        case 10: self = .attachmentOpened(found: try reader.readBool())
        case 11:
            let (call, instance) = (try reader.readVarint(), try reader.readVarint())
            self = .elementEvent(call: call, instance: instance, event: try ElementEvent(from: &reader))
        case 20:
            let handlesResponses = try reader.readBool()
            let handlesMedia = try reader.readBool()
            let handlesElementEvents = try reader.readBool()
            var layers: [SandboxLayer] = []
            for _ in 0..<(try reader.readCount(atMost: 64)) {
                let name = try reader.readString()
                guard let status = SandboxLayer.Status(rawValue: try reader.readString()) else {
                    throw ByteReader.Malformed(description: "an unknown sandbox layer status")
                }
                layers.append(SandboxLayer(name, status, try reader.readString()))
            }
            self = .ready(handlesResponses: handlesResponses, handlesMedia: handlesMedia,
                          handlesElementEvents: handlesElementEvents, sandbox: layers)
        case 21: self = .launchFailed(try Diagnostic(from: &reader))
        case 22:
            self = .done(call: try reader.readVarint(), failure: try reader.readBool() ? try Diagnostic(from: &reader) : nil)
        case 23: self = .hostCall(instance: try reader.readVarint(), call: try HostCall(from: &reader))
        case 24:
            self = .completeResponse(token: try reader.readVarint(), instance: try reader.readBool() ? try reader.readVarint() : nil,
                                     option: Int32(truncatingIfNeeded: try reader.readInt64()))
        case 25:
            self = .completeRequest(token: try reader.readVarint(), instance: try reader.readBool() ? try reader.readVarint() : nil,
                                    answer: try reader.readBool() ? try ServiceAnswer(from: &reader) : nil)
        case 26:
            self = .createAttachment(instance: try reader.readVarint(), attachment: try AttachmentRequest(from: &reader))
        case 27: self = .report(try Diagnostic(from: &reader))
        case 28: self = .openAttachment(instance: try reader.readVarint(), identifier: try reader.readString())
        case 29 where !nested:
            var messages: [WorkerMessage] = []
            for _ in 0..<(try reader.readCount(atMost: WorkerMessage.batchLimit)) {
                messages.append(try WorkerMessage(from: &reader, nested: true))
            }
            self = .batch(messages)
        default: throw ByteReader.Malformed(description: "an unknown message (tag \(tag))")
        }
    }
}

extension WorkerMessage {
    /// The most messages a batch carries.
    package static let batchLimit = 4096

    /// The bytes of a batch of the messages whose bytes are `parts` (each one `encoded`).
    package static func batch(of parts: [[UInt8]]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(byte: 29)
        writer.write(count: parts.count)
        for part in parts { writer.append(raw: part) }
        return writer.bytes
    }
}

extension WorkerSandboxSettings {
    fileprivate func encode(into writer: inout ByteWriter) {
        writer.write(array: paths) { writer, rule in
            writer.write(string: rule.path)
            writer.write(byte: rule.access.rawValue)
        }
        writer.write(bool: seccomp)
        writer.write(bool: allowNetwork)
        writer.write(varint: memoryLimit)
        writer.write(double: cpuTimePerCall)
        writer.write(double: cpuTimeTotal)
        writer.write(string: scratch)
        writer.write(varint: scratchSize)
    }

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init()
        for _ in 0..<(try reader.readCount(atMost: 256)) {
            let path = try reader.readString()
            guard let access = PathRule.Access(rawValue: try reader.readByte()) else {
                throw ByteReader.Malformed(description: "an unknown path access")
            }
            paths.append(PathRule(path, access))
        }
        seccomp = try reader.readBool()
        allowNetwork = try reader.readBool()
        memoryLimit = try reader.readVarint()
        cpuTimePerCall = try reader.readDouble()
        cpuTimeTotal = try reader.readDouble()
        scratch = try reader.readString()
        scratchSize = try reader.readVarint()
    }
}

extension AttachmentResult {
    fileprivate func encode(into writer: inout ByteWriter) {
        switch self {
        case let .made(identifier, type, size):
            writer.write(byte: 0)
            writer.write(string: identifier)
            writer.write(string: type)
            writer.write(varint: size)
        case .refused(let code):
            writer.write(byte: 1)
            writer.write(int64: Int64(code))
        case .failed(let status):
            writer.write(byte: 2)
            writer.write(int64: Int64(status))
        }
    }

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        switch try reader.readByte() {
        case 0: self = .made(identifier: try reader.readString(), type: try reader.readString(), size: try reader.readVarint())
        case 1: self = .refused(code: Int32(truncatingIfNeeded: try reader.readInt64()))
        case 2: self = .failed(status: Int32(truncatingIfNeeded: try reader.readInt64()))
        default: throw ByteReader.Malformed(description: "an unknown attachment result")
        }
    }
}

extension UserNotification {
    fileprivate func encode(into writer: inout ByteWriter) {
        writer.write(string: identifier)
        writer.write(double: date)
        content.encode(into: &writer)
    }

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let identifier = try reader.readString()
        let date = try reader.readDouble()
        self.init(identifier: identifier, date: date, content: try NotificationContent(from: &reader))
    }
}

extension NotificationContent {
    fileprivate func encode(into writer: inout ByteWriter) {
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

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
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
    fileprivate func encode(into writer: inout ByteWriter) {
        writer.write(string: identifier)
        writer.write(string: type)
        writer.write(string: path)
        writer.write(varint: size)
        thumbnail.encode(into: &writer)
    }

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init(identifier: try reader.readString(), type: try reader.readString(), path: try reader.readString(),
                  size: try reader.readVarint(), thumbnail: try ThumbnailOptions(from: &reader))
    }
}

extension ThumbnailOptions {
    fileprivate func encode(into writer: inout ByteWriter) {
        writer.write(bool: hidden)
        writer.write(optional: clippingRect) { writer, rect in
            for value in [rect.x, rect.y, rect.width, rect.height] { writer.write(double: value) }
        }
        writer.write(optional: time) { $0.write(double: $1) }
    }

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
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
    fileprivate func encode(into writer: inout ByteWriter) {
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

    fileprivate init(from reader: inout ByteReader, depth: Int) throws(ByteReader.Malformed) {
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
    fileprivate mutating func write(actions: [NotificationAction]) {
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
    fileprivate mutating func write(callRate: CallRate?) {
        write(optional: callRate) { writer, rate in
            writer.write(double: rate.perSecond)
            writer.write(double: rate.burst)
        }
    }
}

extension ByteReader {
    /// Reads at most `limit` actions written by `write(actions:)`.
    fileprivate mutating func readActions(atMost limit: Int) throws(ByteReader.Malformed) -> [NotificationAction] {
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
    fileprivate mutating func readCallRate() throws(ByteReader.Malformed) -> CallRate? {
        try readBool() ? CallRate(perSecond: try readDouble(), burst: try readDouble()) : nil
    }
}

extension HostCall {
    fileprivate func encode(into writer: inout ByteWriter) {
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

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
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
    fileprivate func encode(into writer: inout ByteWriter) {
        content.encode(into: &writer)
        writer.write(array: attachmentIdentifiers) { $0.write(string: $1) }
        writer.write(array: problems) { $1.encode(into: &$0) }
    }

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        let content = try NotificationContent(from: &reader)
        var identifiers: [String] = []
        for _ in 0..<(try reader.readCount(atMost: 1 << 12)) { identifiers.append(try reader.readString()) }
        var problems: [Diagnostic] = []
        for _ in 0..<(try reader.readCount(atMost: 1 << 12)) { problems.append(try Diagnostic(from: &reader)) }
        self.init(content: content, attachmentIdentifiers: identifiers, problems: problems)
    }
}

extension AttachmentRequest {
    fileprivate func encode(into writer: inout ByteWriter) {
        writer.write(string: identifier)
        writer.write(string: url)
        writer.write(optional: typeHint) { $0.write(string: $1) }
        thumbnail.encode(into: &writer)
    }

    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init(identifier: try reader.readString(), url: try reader.readString(), typeHint: try reader.readOptionalString(),
                  thumbnail: try ThumbnailOptions(from: &reader))
    }
}

extension ElementEvent {
    /// Reads an event `WorkerMessage.encoded` wrote: its kind, element and
    /// text, each as its kind needs, and within the limits the host admits
    /// (an event that breaks them is malformed).
    fileprivate init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
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
