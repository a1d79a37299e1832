/// An error of the notification center: a code (Apple's `UNError.Code`
/// where one applies, else the protocol's JSON-RPC code, else one of the
/// library's own) and the host's message.
public struct UserNotificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The number: Apple's `UNError.Code`, a JSON-RPC error code (negative), or the library's own (-1…-7).
        public let rawValue: Int
        /// Makes a code of `rawValue`.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The app is not allowed to notify (`UNError.Code.notificationsNotAllowed`).
        public static let notificationsNotAllowed = Code(rawValue: 1)
        /// An attachment's URL is not a file URL (`attachmentInvalidURL`).
        public static let attachmentInvalidURL = Code(rawValue: 100)
        /// An attachment's type is not recognised (`attachmentUnrecognizedType`).
        public static let attachmentUnrecognizedType = Code(rawValue: 101)
        /// An attachment is too large or empty (`attachmentInvalidFileSize`).
        public static let attachmentInvalidFileSize = Code(rawValue: 102)
        /// An attachment is not in the store (`attachmentNotInDataStore`).
        public static let attachmentNotInDataStore = Code(rawValue: 103)
        /// An attachment could not be moved into the store (`attachmentMoveIntoDataStoreFailed`).
        public static let attachmentMoveIntoDataStoreFailed = Code(rawValue: 104)
        /// An attachment's file is corrupt (`attachmentCorrupt`).
        public static let attachmentCorrupt = Code(rawValue: 105)
        /// A trigger fires on no date to come (`notificationInvalidNoDate`).
        public static let notificationInvalidNoDate = Code(rawValue: 1400)
        /// The request's content is empty (`notificationInvalidNoContent`).
        public static let notificationInvalidNoContent = Code(rawValue: 1401)
        /// A badge count below zero (`badgeInputInvalid`).
        public static let badgeInputInvalid = Code(rawValue: 1600)
        /// The host could not be reached, or the connection to it ended before the answer.
        public static let hostUnavailable = Code(rawValue: -1)
        /// The host answered something the library cannot read.
        public static let invalidAnswer = Code(rawValue: -2)
        /// What the app gave cannot be sent (a value JSON cannot carry).
        public static let invalidInput = Code(rawValue: -3)
        /// Remote notifications cannot be registered: no UnifiedPush
        /// distributor is on the session bus (the message says what to install).
        public static let noPushDistributor = Code(rawValue: -4)
        /// Remote notifications cannot be registered yet: no front end
        /// (`tidings desktop`) connects the host to the session bus. The
        /// registration is kept, and the delegate hears of its endpoint once one does.
        public static let noPushFrontEnd = Code(rawValue: -5)
        /// The UnifiedPush distributor refused the registration (the message is its reason).
        public static let pushRegistrationFailed = Code(rawValue: -6)
        /// The UnifiedPush distributor ended the registration: pushes no
        /// longer arrive until the app registers again.
        public static let pushUnregistered = Code(rawValue: -7)
    }

    /// What kind of failure it is.
    public let code: Code
    /// The host's message (one plain sentence), or the library's.
    public let message: String
    /// The JSON-RPC error code the host answered, when it answered one.
    public let protocolCode: Int?

    /// Makes an error of `code` saying `message`.
    public init(code: Code, message: String, protocolCode: Int? = nil) {
        self.code = code
        self.message = message
        self.protocolCode = protocolCode
    }

    /// The error a JSON-RPC `error` object says: Apple's code from
    /// `data.appleCode` when the host gives one, else the JSON-RPC code.
    init(answer error: JSONValue) {
        let rpcCode = error["code"]?.integerValue.map { Int($0) }
        let apple = error["data"]?["appleCode"]?.integerValue.map { Int($0) }
        self.init(code: Code(rawValue: apple ?? rpcCode ?? Code.invalidAnswer.rawValue),
                  message: error["message"]?.stringValue ?? "The host answered an error without a message.",
                  protocolCode: rpcCode)
    }

    /// The code and the message.
    public var description: String { "\(code.rawValue): \(message)" }
}
