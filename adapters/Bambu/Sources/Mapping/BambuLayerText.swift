/// Where the card shows `Layer N/M` while a job prints (and `Downloading N %` while it prepares).
///
/// The tracker pushes when the state text changes, so a layer count in the state text costs one
/// push per layer — hundreds per print, more than a month of PushWard's free tier. As a volatile
/// detail it costs nothing but shows the layer as of the last push (which, with an accurate
/// glide, can be long ago); the bar and the countdown stay exact either way.
public enum BambuLayerText: String, Sendable, Hashable, CaseIterable {
    /// The state text says `Printing`; `Layer N/M` leads the volatile subtitle and rides along with
    /// every push that happens anyway (default).
    case details
    /// The state text is `Layer N/M`: always current, one push per layer.
    case state
    /// The state text says `Printing`; no layer count.
    case off
}
