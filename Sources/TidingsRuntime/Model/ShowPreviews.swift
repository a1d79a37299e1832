/// Whether an app's notifications show their text (UNShowPreviewsSetting,
/// the user's per-app Show Previews setting). Apple's third value, "when
/// unlocked", is the front end's to apply: it knows when its screen is
/// locked, and registers `never` while it is.
package enum ShowPreviews: String, Sendable, CaseIterable {
    /// Title, subtitle and body show.
    case always
    /// The body shows as the category's hidden-previews placeholder; title
    /// and subtitle only when the category's options say so.
    case never
}
