import TidingsBase
import TidingsRuntime

extension Run {
    /// The `elements` check: every event the view allows, as a user would
    /// make them — each enabled button tapped, each enabled text field
    /// submitted, each request for text input answered — with what each
    /// event did to the view.
    mutating func elementsCheck(category: String) -> ValidationCheck {
        guard manifest.userInteractionEnabled else {
            return ValidationCheck(name: .elements, verdict: .skip,
                                   detail: "UNNotificationExtensionUserInteractionEnabled is not set, so the view takes no events")
        }
        let host = makeHost()
        let sample = SampleNotifications.Sample(shape: "elements", payload: .object([("content", .object([
            ("title", .string("Elements")), ("body", .string("Each one used")), ("categoryIdentifier", .string(category)),
        ]))]))
        let delivered = deliver(sample, through: host)
        var problems = delivered.failures(shape: sample.shape)
        guard !problems.containsError, var presentation = delivered.delivery?.presentation else {
            return .judging(.elements, problems, passing: "")
        }
        let identifier = presentation.notification.identifier
        // The inputs of the view as drawn, in the interface's order; each is used while it is shown and enabled.
        let inputs = (presentation.view?.nodes ?? []).compactMap { node -> String? in
            switch node.content {
            case .button, .textField: node.identifier
            default: nil
            }
        }
        var events = 0
        var answered = 0
        /// Sends `event`; false once the validation of the view cannot go on.
        func send(_ event: ElementEvent, label: String) -> Bool {
            let (result, notes) = timed(host) { () throws(Diagnostic) -> InteractionOutcome in
                try host.interact(with: identifier, event)
            }
            events += 1
            switch result {
            case .success(let outcome):
                problems += (outcome.diagnostics + notes).filter { $0.severity != .note && $0.code != .workerOutput }
                    .map { $0.prefixed("[\(label)]") }
                presentation = outcome.presentation
            case .failure(let error):
                problems.append(error.prefixed("[\(label)]"))
            }
            // A request for text input the extension made is answered, as a user would (a few times at most).
            if !problems.containsError, presentation.textInput != nil, answered < 3, !presentation.dismissed {
                answered += 1
                return send(.textInput(text: "Validated ✓ — テキスト"), label: "text input after \(label)")
            }
            return !problems.containsError && !presentation.dismissed
        }
        if presentation.textInput != nil, !send(.textInput(text: "Validated ✓"), label: "text input") {
            return judged(problems, events: events)
        }
        for input in inputs {
            guard let node = presentation.view?.node(input), !node.hidden, node.enabled == true else { continue }
            let going = switch node.content {
            case .textField: send(.submit(element: input, text: "Validated ✓ — テキスト"), label: "submit \(input)")
            default: send(.tap(element: input), label: "tap \(input)")
            }
            guard going else { break }
        }
        return judged(problems, events: events)
    }

    private func judged(_ problems: [Diagnostic], events: Int) -> ValidationCheck {
        .judging(.elements, problems, passing: events == 0
            ? "the view has no enabled button or text field, and asked for no text input"
            : "\(events) element event\(events == 1 ? "" : "s") (each button, text field and text input), each answered")
    }
}
