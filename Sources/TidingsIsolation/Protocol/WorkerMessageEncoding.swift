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
        // Another version's hello is read only as far as every version writes it: enough to refuse it.
        if case .hello(let version, _, _, _, _, _) = self, version != WorkerMessage.version { return }
        guard reader.isAtEnd else { throw ByteReader.Malformed(description: "bytes after the message") }
    }

    private func encode(into writer: inout ByteWriter) {
        switch self {
        case let .hello(version, bundle, manifest, interface, sandbox, host):
            writer.write(byte: 0)
            writer.write(varint: UInt64(version))
            writer.write(string: bundle)
            sandbox.encode(into: &writer)
            writer.write(varint: UInt64(host.abiVersion))
            writer.write(callRate: host.callRate)
            writer.write(optional: manifest) { $1.encode(into: &$0) }
            writer.write(optional: interface) { $1.encode(into: &$0) }
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
        case let .attachmentLeftInPlace(instance, identifier, reason):
            writer.write(byte: 30)
            writer.write(varint: instance)
            writer.write(string: identifier)
            writer.write(string: reason)
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
            guard version == WorkerMessage.version else {
                self = .hello(version: version, bundle: bundle, manifest: nil, interface: nil, sandbox: sandbox,
                              host: WorkerHostTable(abiVersion: 1, callRate: nil))
                return
            }
            let host = WorkerHostTable(abiVersion: UInt32(truncatingIfNeeded: try reader.readVarint()),
                                       callRate: try reader.readCallRate())
            let manifest = try reader.readBool() ? try Manifest(from: &reader) : nil
            let interface = try reader.readBool() ? try Interface(from: &reader) : nil
            self = .hello(version: version, bundle: bundle, manifest: manifest, interface: interface, sandbox: sandbox,
                          host: host)
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
        case 30:
            self = .attachmentLeftInPlace(instance: try reader.readVarint(), identifier: try reader.readString(),
                                          reason: try reader.readString())
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
    func encode(into writer: inout ByteWriter) {
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

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
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
    func encode(into writer: inout ByteWriter) {
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

    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        switch try reader.readByte() {
        case 0: self = .made(identifier: try reader.readString(), type: try reader.readString(), size: try reader.readVarint())
        case 1: self = .refused(code: Int32(truncatingIfNeeded: try reader.readInt64()))
        case 2: self = .failed(status: Int32(truncatingIfNeeded: try reader.readInt64()))
        default: throw ByteReader.Malformed(description: "an unknown attachment result")
        }
    }
}
