public import LiveBridgeCore
public import LiveBridgeNet

/// What a `BambuAdapter` just did, for an optional observer (diagnostics, tests that must know
/// when a report has been handled before they move virtual time on).
///
/// The observer is called on the adapter's task after the work is done (updates already handed
/// to `emit`); it must return quickly.
public enum BambuAdapterEvent: Sendable {
    /// A status report was merged; `updates` are what it produced (already emitted).
    case report(BambuReport, state: BambuPrinterState, updates: [ActivityUpdate])
    /// A message on the report topic that is not a status report (command ack, info reply…).
    case ignored(String)
    /// A message that is not a readable report; it was counted as a parse error.
    case malformed(BambuReportError)
    /// The on-connect `pushall` request was sent (`true`) or skipped by the rate limit (`false`).
    case pushall(sent: Bool)
    /// The MQTT session's status changed (health has been updated).
    case connection(MQTTSessionStatus)
    /// A timer check ran (offline grace, failure settling); `updates` are what it produced.
    case tick(updates: [ActivityUpdate])
}
