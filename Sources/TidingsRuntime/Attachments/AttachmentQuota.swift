/// How much the attachment store keeps for whom: bytes and files per
/// notification, per bundle (the files a service extension created) and per
/// app (every file of the app's notifications, a payload's included).
///
/// Apple documents per-type limits (images 10 MB, audio 5 MB, video 50 MB)
/// but none on what one notification or app may pile up; a host that keeps
/// every notification needs one. The defaults hold any real notification —
/// a 50 MB video with a few images, far more files than a banner shows — and
/// let one app keep a few dozen media notifications, while a hostile service
/// extension that attaches the same 10 MB picture over and over stops at
/// 64 MiB for its notification and 256 MiB in all.
package struct AttachmentQuota: Sendable, Equatable {
    /// Bytes one notification's attachments may take: 64 MiB, Apple's
    /// largest type (a 50 MB video) with room for a thumbnail's worth beside it.
    package var notificationBytes: UInt64 = 64 << 20
    /// Files one notification may carry: 32 (iOS shows the first one; apps
    /// attach a handful).
    package var notificationFiles = 32
    /// Bytes the files one bundle's service extension created may take, over
    /// all notifications kept: 256 MiB.
    package var bundleBytes: UInt64 = 256 << 20
    /// Files one bundle's service extension may have in the store: 1,024.
    package var bundleFiles = 1024
    /// Bytes one app's notifications may take, a payload's attachments and
    /// its service extension's together: 512 MiB.
    package var appBytes: UInt64 = 512 << 20
    /// Files one app's notifications may have in the store: 2,048.
    package var appFiles = 2048

    /// Quota refusals of one bundle within `abuseWindow` seconds that count
    /// as a fault (`attachment.store-abuse`): 16. A well-behaved extension
    /// that meets the quota stops at its first refusal.
    package var abuseRefusals = 16
    /// The window, in seconds, in which `abuseRefusals` refusals are a fault: 60.
    package var abuseWindow = 60.0

    /// The defaults.
    package init() {}

}
