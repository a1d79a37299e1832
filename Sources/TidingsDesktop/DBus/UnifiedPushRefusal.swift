/// Why the connector refused a distributor's call: one plain sentence, for
/// the D-Bus error it answers and the front end's log.
package struct UnifiedPushRefusal: Error, Sendable, Equatable {
    /// What was wrong with the call.
    package let sentence: String

    /// A refusal saying `sentence`.
    package init(sentence: String) {
        self.sentence = sentence
    }
}
