import TidingsBase

/// Why the desktop front end stopped (or could not start): a code and one sentence.
package struct FrontEndError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, for the command line's exit code.
    package enum Kind: Sendable {
        /// No server at the socket and the front end was told not to wait.
        case noServer
        /// The socket or its directory is not the user's own (`refusesPath`).
        case unsafeSocket
        /// The server speaks a protocol older than the front end needs.
        case protocolTooOld
        /// No session bus, or it cannot be reached.
        case noSessionBus
        /// Another front end runs on the session bus (it owns `DesktopBus.busName`).
        case alreadyRunning
        /// libsystemd (sd-bus) is missing.
        case noLibrary
        /// Anything else the system refused (a pipe, inotify).
        case system
    }

    /// The kind.
    package var kind: Kind
    /// The diagnostic, with its stable code.
    package var diagnostic: Diagnostic

    /// A failure of `kind` saying `diagnostic`.
    package init(_ kind: Kind, _ diagnostic: Diagnostic) {
        self.kind = kind
        self.diagnostic = diagnostic
    }

    /// The failure for a D-Bus error met at the start.
    package init(_ error: BusError) {
        let kind: Kind = switch error.code {
        case BusError.noLibrary: .noLibrary
        case BusError.nameTaken: .alreadyRunning
        default: .noSessionBus
        }
        self.init(kind, error.diagnostic)
    }

    /// The code and the sentence.
    package var description: String { "\(diagnostic.code): \(diagnostic.message)" }
}

extension Diagnostic.Code {
    /// No server listens at the socket (with `--no-wait`).
    package static let desktopNoServer = Self("desktop.no-server")
    /// The server's protocol is older than version 2, or lacks a capability the front end uses.
    package static let desktopProtocolTooOld = Self("desktop.protocol-too-old")
    /// The front end's own descriptors (its stop pipe, its socket watch) cannot be made.
    package static let desktopSystem = Self("desktop.system")
}
