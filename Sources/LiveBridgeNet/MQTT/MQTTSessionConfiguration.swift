import FoundationEssentials

/// Everything an `MQTTSession` needs to reach one broker.
///
/// A value type so adapters build it from their config and tests from a broker harness. The
/// password is a secret: `description` and reflection never show it, and the session registers
/// it with the logger's redactor before connecting.
public struct MQTTSessionConfiguration: Sendable, Equatable {
    /// Broker host name or IP address (a printer's LAN IP).
    public var host: String
    /// Broker port (8883 for MQTT over TLS, 1883 plain).
    public var port: Int
    /// Client identifier; unique per process (`uniqueClientID(prefix:)`), or a second instance
    /// kicks the first off the broker.
    public var clientID: String
    /// User name, if the broker requires one (`bblp` for Bambu printers).
    public var username: String?
    /// Password (a printer's LAN access code). Secret: never logged.
    public var password: String?
    /// Keepalive in seconds (5…65535); a silent link is declared dead after 1.5× this.
    public var keepAlive: Int
    /// TLS mode and certificate policy.
    public var security: MQTTTransportSecurity
    /// TLS versions offered.
    public var tlsVersions: TLSVersionRange
    /// Subscriptions renewed on every (re)connect.
    public var subscriptions: [MQTTSubscription]
    /// Retry schedule.
    public var reconnect: MQTTReconnectPolicy
    /// Seconds allowed for the TLS handshake and CONNACK once TCP is connected. The TCP connect
    /// itself is the kernel's: immediate for a refused port or an unreachable LAN host, about two
    /// minutes when packets are silently dropped.
    public var connectTimeout: Double
    /// Inbound messages buffered for a slow consumer; beyond it the oldest are dropped (and counted).
    public var inboundBufferLimit: Int
    /// The last will: what the broker publishes for us when the connection ends without a
    /// DISCONNECT (the process died, the network went away). `retained` is the will's retain flag.
    public var will: MQTTMessage?

    /// A configuration; only `host`, `port`, `clientID` and `security` are required.
    public init(
        host: String,
        port: Int,
        clientID: String,
        username: String? = nil,
        password: String? = nil,
        keepAlive: Int = 60,
        security: MQTTTransportSecurity,
        tlsVersions: TLSVersionRange = .tls12OrNewer,
        subscriptions: [MQTTSubscription] = [],
        reconnect: MQTTReconnectPolicy = .standard,
        connectTimeout: Double = 20,
        inboundBufferLimit: Int = 1024,
        will: MQTTMessage? = nil
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.username = username
        self.password = password
        self.keepAlive = keepAlive
        self.security = security
        self.tlsVersions = tlsVersions
        self.subscriptions = subscriptions
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.inboundBufferLimit = inboundBufferLimit
        self.will = will
    }

    /// `prefix-<8 random hex digits>`: unique per process, recognisable in broker logs.
    public static func uniqueClientID(prefix: String) -> String {
        let random = UInt32.random(in: 0...UInt32.max)
        let hex = String(random, radix: 16)
        return "\(prefix)-\(String(repeating: "0", count: 8 - hex.count))\(hex)"
    }

    /// `host:port`, for messages.
    public var endpoint: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Checks every field; the error says which one is wrong and what is expected.
    public func validate() throws(MQTTSessionError) {
        func invalid(_ message: String) -> MQTTSessionError {
            MQTTSessionError(code: .invalidConfiguration, message: message)
        }
        if host.isEmpty || host.contains(where: { $0 == " " || $0 == "/" }) {
            throw invalid("MQTT host \"\(host)\" is not a host name or IP address")
        }
        guard (1...65535).contains(port) else {
            throw invalid("MQTT port \(port) is out of range (expected 1–65535, usually 8883 for TLS)")
        }
        guard !clientID.isEmpty, clientID.utf8.count <= 65535, !clientID.contains("\0") else {
            throw invalid("MQTT client id must be a non-empty string")
        }
        guard (5...65535).contains(keepAlive) else {
            throw invalid("MQTT keepalive \(keepAlive) s is out of range (expected 5–65535 seconds)")
        }
        if password != nil && username == nil {
            throw invalid("an MQTT password needs a user name (Bambu printers use \"bblp\")")
        }
        if username?.contains("\0") == true || password?.contains("\0") == true {
            throw invalid("MQTT user name and password must not contain NUL characters")
        }
        guard connectTimeout > 0 else {
            throw invalid("MQTT connect timeout must be positive (got \(connectTimeout) s)")
        }
        guard inboundBufferLimit > 0 else {
            throw invalid("MQTT inbound buffer limit must be positive (got \(inboundBufferLimit))")
        }
        if let will, !MQTTTopic.isValidName(will.topic) {
            throw invalid("MQTT will topic \"\(will.topic)\" must be non-empty and contain no + or # wildcards")
        }
        for subscription in subscriptions {
            guard MQTTTopic.isValidFilter(subscription.topicFilter) else {
                throw invalid(
                    "MQTT subscription \"\(subscription.topicFilter)\" is not a valid topic filter "
                        + "(non-empty; `#` only as the last level, `+` only as a whole level)")
            }
        }
        switch security {
        case .certificateAuthority(let caFile?, _):
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw invalid("MQTT CA file \(caFile) does not exist or is not readable")
            }
        case .trustOnFirstUse(let identity?):
            guard !identity.isEmpty else { throw invalid("the trust-on-first-use identity must not be empty") }
        default:
            break
        }
    }

    /// The trust-on-first-use pin identity: the configured one, or `mqtt-<host>-<port>`.
    var pinIdentity: String {
        if case .trustOnFirstUse(let identity?) = security { return identity }
        return "mqtt-\(host)-\(port)"
    }
}

extension MQTTSessionConfiguration: CustomStringConvertible, CustomReflectable {
    /// Every field except the password, which shows as `[redacted]` when set.
    public var description: String {
        var parts = ["\(endpoint)", "client=\(clientID)"]
        if let username { parts.append("user=\(username)") }
        if password != nil { parts.append("password=[redacted]") }
        parts.append("security=\(security)")
        if !subscriptions.isEmpty { parts.append("subscriptions=\(subscriptions.map(\.description))") }
        return "MQTT(" + parts.joined(separator: " ") + ")"
    }

    /// Reflection without the password, so `dump()` and test failure output cannot leak it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "clientID": clientID, "username": username as Any,
                "password": password == nil ? "nil" : "[redacted]", "keepAlive": keepAlive,
                "security": security, "tlsVersions": tlsVersions, "subscriptions": subscriptions,
                "reconnect": reconnect, "connectTimeout": connectTimeout,
                "inboundBufferLimit": inboundBufferLimit, "will": will as Any,
            ],
            displayStyle: .struct)
    }
}
