import Testing
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// Whether a response fits the actions its notification offers.
@Suite struct ResponseValidationTests {
    let actions = [NotificationAction(identifier: "accept", title: "Accept"),
                   NotificationAction(identifier: "reply", title: "Reply",
                                      textInput: NotificationAction.TextInput(buttonTitle: "Send", placeholder: ""))]

    /// The code `response` is refused with against `actions`, nil when it fits.
    func refusal(_ response: ResponseRequest, against actions: [NotificationAction], category: String = "invite",
                 registered: Bool = true) -> Diagnostic? {
        do throws(Diagnostic) {
            try ResponseValidation.check(response, against: actions, category: category, registered: registered)
            return nil
        } catch {
            return error
        }
    }

    @Test func theDefaultAndDismissActionsFitAnyNotificationButCarryNoText() {
        #expect(refusal(ResponseRequest(actionIdentifier: ActionIdentifier.default), against: []) == nil)
        #expect(refusal(ResponseRequest(actionIdentifier: ActionIdentifier.dismiss), against: []) == nil)
        #expect(refusal(ResponseRequest(actionIdentifier: ActionIdentifier.dismiss, userText: "hi"), against: [])?.code
            == .responseTextUnexpected)
    }

    @Test func theSettingsActionFitsAnyNotificationButCarriesNoText() {
        #expect(refusal(ResponseRequest(actionIdentifier: ActionIdentifier.settings), against: []) == nil)
        #expect(refusal(ResponseRequest(actionIdentifier: ActionIdentifier.settings), against: actions) == nil)
        #expect(refusal(ResponseRequest(actionIdentifier: ActionIdentifier.settings, userText: "hi"), against: [])?.code
            == .responseTextUnexpected)
    }

    @Test func textGoesExactlyWithTextInputActions() {
        #expect(refusal(ResponseRequest(actionIdentifier: "reply", userText: "Yes"), against: actions) == nil)
        #expect(refusal(ResponseRequest(actionIdentifier: "reply"), against: actions)?.code == .responseTextRequired)
        #expect(refusal(ResponseRequest(actionIdentifier: "accept", userText: "Yes"), against: actions)?.code
            == .responseTextUnexpected)
    }

    @Test func anUnknownActionIsRefusedWithTheNearestOrWhyNoneIsOffered() {
        let near = refusal(ResponseRequest(actionIdentifier: "acept"), against: actions)
        #expect(near?.code == .responseUnknownAction)
        #expect(near?.message.contains("did you mean \"accept\"") == true)
        let unregistered = refusal(ResponseRequest(actionIdentifier: "accept"), against: [], registered: false)
        #expect(unregistered?.message.contains("is not registered") == true)
        let uncategorised = refusal(ResponseRequest(actionIdentifier: "accept"), against: [], category: "")
        #expect(uncategorised?.message.contains("it has no category") == true)
    }
}
