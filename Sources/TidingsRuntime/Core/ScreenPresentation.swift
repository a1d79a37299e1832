import TidingsProtocol

/// Drawing what a front end shows for a notification on the screen.
extension Screen {
    /// What a front end shows for `entry`, whose registered category has
    /// `categoryActions`: a banner, or its expanded interface as its
    /// instance is now when that is open.
    func presentation(_ entry: DeliveredNotification, categoryActions: [NotificationAction]?,
                      dismissed: Bool) -> Presentation {
        let (settings, open) = state.withLock { ($0.settings(for: entry), $0.interface(of: entry)) }
        guard let open, let instance = open.instance else {
            // A banner names the extension whose interface opens; an interface whose extension failed, none.
            var banner = Presentation(
                notification: entry.notification, app: entry.app,
                extensionIdentifier: open == nil ? entry.target?.manifest.bundleIdentifier : nil,
                header: settings.app.name ?? entry.app,
                defaultContentHidden: false, contentWidth: entry.width, initialContentHeight: nil, contentHeight: nil,
                view: nil, actions: categoryActions ?? [], mediaButton: nil, mediaPlaying: false,
                userInteractionEnabled: false, expanded: open != nil, dismissed: dismissed, settings: settings,
                quiet: entry.quiet)
            banner.presentationOptions = entry.options
            return banner
        }
        return instance.context.read { state in
            presentation(entry, of: instance, state: state, categoryActions: categoryActions, settings: settings,
                         dismissed: dismissed)
        }
    }

    /// `presentation(_:categoryActions:dismissed:)` for a notification
    /// shown, with its registered category's actions.
    func currentPresentation(of entry: DeliveredNotification, dismissed: Bool = false) -> Presentation {
        presentation(entry, categoryActions: categoryActions(of: entry), dismissed: dismissed)
    }

    /// What a front end shows for `entry`'s expanded interface, whose
    /// registered category has `categoryActions`, with `instance` in `state`
    /// and the app's and category's `settings`.
    func presentation(_ entry: DeliveredNotification, of instance: InstanceRecord,
                      state: borrowing InstanceContext.State, categoryActions: [NotificationAction]?,
                      settings: PresentationSettings, dismissed: Bool) -> Presentation {
        let manifest = instance.manifest
        let initial = manifest.initialContentSizeRatio.map { entry.width * $0 }
        var expanded = Presentation(
            notification: entry.notification, app: entry.app, extensionIdentifier: manifest.bundleIdentifier,
            header: (manifest.overridesDefaultTitle ? state.title : nil) ?? settings.app.name ?? entry.app,
            defaultContentHidden: manifest.defaultContentHidden, contentWidth: entry.width,
            initialContentHeight: initial, contentHeight: state.preferredContentHeight ?? initial, view: state.view,
            actions: state.actions ?? categoryActions ?? [], mediaButton: state.mediaButton,
            mediaPlaying: state.mediaPlaying, userInteractionEnabled: manifest.userInteractionEnabled,
            expanded: !dismissed, dismissed: dismissed, settings: settings, textInput: state.textInput,
            quiet: entry.quiet)
        expanded.presentationOptions = entry.options
        return expanded
    }
}
