import LiveBridgeApp
import LiveBridgeCore

/// A source for the resource measurement: starts the local fake its adapter talks to and gives
/// the `sources[]` entry pointing at it; `setBusy` turns the fake's load on for the busy phase.
///
/// The three planned entries, added to `ResourceBench.sources` once the adapters are merged:
/// SABnzbd against a tiny fake SABnzbd (an `HTTPServer` answering `mode=queue`/`mode=history`
/// from a recording, a new job every few seconds while busy), Bambu against a local mosquitto
/// (the fake printer publishes a report every second while busy), Home Assistant against a fake
/// WebSocket server (auth, `subscribe_entities`, a state change every second while busy).
protocol ResourceBenchSource: Sendable {
    /// Starts the fake (files may go in `directory`) and returns the config entry
    /// (`{name, type, …}`) for the adapter.
    func start(directory: String) async throws(BenchError) -> JSONValue
    /// Load on (busy phase) or off (idle phase).
    func setBusy(_ busy: Bool) async
    /// Stops the fake.
    func stop() async
}

/// The config file `livebridge run` gets in the resource measurement.
struct ResourceBenchConfig: Sendable {
    var dataDirectory: String
    var apiToken: String
    var pushwardURL: String
    var pushwardKey: String
    var sources: [JSONValue] = []

    /// Two sinks (PushWard at the loopback receiver, the console sink printing JSON Lines),
    /// the control server on a free port with the activities API, and `sources`.
    var json: JSONValue {
        [
            "dataDir": .string(dataDirectory),
            "server": ["listen": "127.0.0.1:0", "apiToken": .string(apiToken)],
            "logLevel": "info",
            "sinks": [
                ["name": "phone", "type": "pushward", "url": .string(pushwardURL), "apiKey": .string(pushwardKey)],
                ["name": "console", "type": "console", "format": "jsonl"],
            ],
            "sources": .array(sources),
        ]
    }

    var text: String { JSONWriter.string(json) }
}
