extension NotificationHost {
    /// Settings a front end may change.
    package struct Configuration: Sendable {
        /// The content width when the front end gives none: 360 points, about
        /// an iPhone notification's width.
        package var defaultContentWidth = 360.0
        /// How long an extension has to complete a response, in seconds
        /// (`tidings deliver/serve --deadline`). Apple sets none; past it the
        /// host applies dismissAndForwardAction, and a completion that comes
        /// later is reported (`HostEvent.lateCompletion`), never a fault.
        package var responseDeadline = Self.defaultResponseDeadline
        /// Two minutes: generous enough for the guide's pattern of
        /// completing after a server round trip on a slow network.
        package static let defaultResponseDeadline = 120.0
        /// The clock completion deadlines are set and judged by: the
        /// system's monotonic clock, or a test's. (A process running an extension elsewhere answers
        /// its extension's completion call by its own monotonic clock against
        /// the same instant; the host's judgement is what counts.)
        package var clock = DeadlineClock.monotonic
        /// How long a service extension has to call its content handler, in
        /// seconds: about 30 on iOS.
        package var serviceDeadline = 30.0
        /// How long, after time-will-expire, a service extension's content
        /// handler still counts, in seconds.
        package var serviceGracePeriod = 2.0
        /// The attachment store's directory
        /// (`AttachmentStore.defaultDirectory(in:)` for the usual one); nil
        /// for a host that keeps no store, whose service extensions cannot
        /// create attachments.
        package var attachmentDirectory: String?
        /// What the store keeps per notification, bundle and app (`AttachmentQuota`'s defaults unless configured).
        package var attachmentQuota = AttachmentQuota()
        /// How fast each instance may call host functions; nil for no limit.
        package var hostCallRate: CallRate? = .standard
        /// How fast what each instance shows may change before the changes
        /// are a flood (fault `abuse`); nil for no limit. However fast it
        /// changes, front ends hear of it at most once a frame.
        package var viewChangeRate: CallRate? = .viewChanges
        /// The most notifications kept delivered in all (at least 1): a
        /// delivery beyond it expires the oldest of the app showing the most,
        /// as a notification centre lets old notifications go; nil keeps
        /// every one.
        package var deliveredLimit: Int?
        /// The most notifications kept delivered of each app (at least 1): a
        /// delivery beyond it expires the oldest of its own app; nil: no
        /// limit per app.
        package var deliveredLimitPerApp: Int?
        /// The ABI version offered to extensions: the host's own; an older
        /// one (1 or 2) shows how an extension fares with an older host.
        package var abiVersion = HostFunctions.abiVersion
        /// How each app's notifications may show, asked by app before one is
        /// presented (the user's authorization of it): every app's presented by default.
        package var presentationPolicy: @Sendable (String) -> PresentationPolicy = { _ in .present }

        /// Told as the host begins to wait on an extension (a call, a
        /// completion), to say what it waits for; nil tells nobody.
        package var onWait: ExtensionWaitObserver?

        /// The default settings.
        package init() {}
    }
}
