/// A client whose connection holds who it is: the server's connections. A
/// receiver that is not one (an in-process caller) is a front end.
package protocol IdentifiedClient: EventReceiver {
    /// Who the connection is, and whether it said so yet.
    var identity: ConnectionIdentity { get }
}
