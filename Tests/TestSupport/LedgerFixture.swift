/// What installs the Ledger fixture (Tests/Fixtures/Extensions/Ledger.c), a
/// content extension that tells its instances apart and remembers which
/// notifications each received.
public enum LedgerFixture {
    /// The app it belongs to.
    public static let app = "com.example.tests"
    /// Its bundle identifier.
    public static let identifier = "com.example.tests.ledger"
    /// The category it serves.
    public static let category = "ledger"
    /// Its interface: labels "instance", "received" and "response".
    public static let interface = """
        {"version": 1, "root": {"type": "stack", "children": [
          {"type": "label", "id": "instance"}, {"type": "label", "id": "received"}, {"type": "label", "id": "response"}]}}
        """
}
