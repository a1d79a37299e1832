// The push family's names, for the desktop front end (the UnifiedPush
// connector) until the server's push methods land beside it: then these
// lines move into Names.swift and its `all` lists (the server describes
// them there), and this file goes. Kept apart so that NamesTests, which
// checks Names.swift against what the server describes, holds meanwhile.

extension ProtocolName where Kind == MethodKind {
    /// `push.distributor`.
    package static let pushDistributor = Self("push.distributor")
    /// `push.endpoint`.
    package static let pushEndpoint = Self("push.endpoint")
    /// `push.list`.
    package static let pushList = Self("push.list")
    /// `push.receive`.
    package static let pushReceive = Self("push.receive")
    /// `push.register`.
    package static let pushRegister = Self("push.register")
    /// `push.registration-failed`.
    package static let pushRegistrationFailed = Self("push.registration-failed")
    /// `push.unregister`.
    package static let pushUnregister = Self("push.unregister")
    /// `push.unregistered`.
    package static let pushUnregistered = Self("push.unregistered")
}

extension ProtocolName where Kind == EventKind {
    /// `push.registration-requested`.
    package static let pushRegistrationRequested = Self("push.registration-requested")
    /// `push.unregistering`.
    package static let pushUnregistering = Self("push.unregistering")
    /// `push.new-endpoint`.
    package static let pushNewEndpoint = Self("push.new-endpoint")
    /// `push.unregistered`.
    package static let pushUnregistered = Self("push.unregistered")
    /// `push.registration-failed`.
    package static let pushRegistrationFailed = Self("push.registration-failed")
    /// `push.rate-limited`.
    package static let pushRateLimited = Self("push.rate-limited")
}
