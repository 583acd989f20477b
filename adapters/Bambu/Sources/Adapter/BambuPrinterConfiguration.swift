public import LiveBridgeCore
import LiveBridgeKit
public import LiveBridgeNet

/// One configured printer (`type: "bambu"`): where it is, how to log in, how to trust it.
///
/// The access code is a secret: it is registered with the redactor when read and never appears in
/// `description`, logs or errors.
public struct BambuPrinterConfiguration: Sendable {
    /// The source's configured name (`workshop-x1c`), also the activity's display name.
    public var name: String
    /// The printer's LAN address.
    public var host: String
    /// MQTT over TLS port (8883 on every printer).
    public var port: Int
    /// The serial number in upper case, as the topics spell it (`01P00A000000001`).
    public var serial: String
    /// The LAN access code (secret; the MQTT password of user `bblp`).
    public var accessCode: String
    /// A pinned SHA-256 fingerprint of the printer's certificate; nil = trust on first use.
    public var fingerprint: CertificateFingerprint?
    /// Skip every certificate check (explicit opt-in only).
    public var insecure: Bool
    /// The activity slug (`bambu-<serial lower-cased>` by default).
    public var slug: String
    /// Where the entry is in the config file (`sources[2]`), for messages that say what to fix.
    public var configPath: String
    /// Timing of the offline display and end, and of failure codes.
    public var mapper: BambuActivityMapper.Settings
    /// MQTT keepalive in seconds: a dead link is noticed after 1.5× this.
    public var keepAlive: Int = 30
    /// Reconnect schedule (1 s doubling to 30 s).
    public var reconnect: MQTTReconnectPolicy = .standard
    /// Seconds allowed for the TLS handshake and CONNACK.
    public var connectTimeout: Double = 20
    /// `pushall` is sent on every (re)connect, but not again within this many seconds: a
    /// connection that flaps must not make a P1 lag by asking for its full state over and over.
    public var pushallMinimumInterval: Double = 20
    /// Seconds after connecting without any report before `/health` warns (wrong serial?).
    public var silenceWarning: Double = 30

    /// A configuration; `slug` defaults to `bambu-<serial lower-cased>`.
    public init(
        name: String, host: String, port: Int = 8883, serial: String, accessCode: String,
        fingerprint: CertificateFingerprint? = nil, insecure: Bool = false, slug: String? = nil,
        configPath: String = "sources[?]", mapper: BambuActivityMapper.Settings = BambuActivityMapper.Settings()
    ) {
        self.name = name
        self.host = host
        self.port = port
        self.serial = serial.uppercased()
        self.accessCode = accessCode
        self.fingerprint = fingerprint
        self.insecure = insecure
        self.slug = slug ?? "bambu-" + serial.lowercased()
        self.configPath = configPath
        self.mapper = mapper
    }

    /// `device/<SERIAL>/report`.
    public var reportTopic: String { "device/\(serial)/report" }
    /// `device/<SERIAL>/request`.
    public var requestTopic: String { "device/\(serial)/request" }

    /// The certificate policy: the pin when configured, `insecure` when asked, else trust on first
    /// use with the pin stored under the activity slug.
    public var security: MQTTTransportSecurity {
        if let fingerprint { return .pinnedCertificate(fingerprint) }
        if insecure { return .insecure }
        return .trustOnFirstUse(identity: slug)
    }

    /// The MQTT session for this printer: TLS 1.2 (some firmware never answers a TLS 1.3 hello),
    /// user `bblp`, the report topic, a client id unique per process.
    public var session: MQTTSessionConfiguration {
        MQTTSessionConfiguration(
            host: host, port: port,
            clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "livebridge-\(serial.lowercased())"),
            username: "bblp", password: accessCode, keepAlive: keepAlive, security: security, tlsVersions: .tls12Only,
            subscriptions: [MQTTSubscription(reportTopic)], reconnect: reconnect, connectTimeout: connectTimeout,
            inboundBufferLimit: 4096)
    }

    /// Reads a `type: "bambu"` entry (calling `finish()`); nil after recording problems.
    public static func read(_ entry: ComponentConfig) -> BambuPrinterConfiguration? {
        let reader = entry.reader
        let host = reader.requiredString("host", hint: "the printer's IP address on your LAN, e.g. \"192.168.1.40\"")
        let port = reader.int("port", default: 8883, range: 1...65535) ?? 8883
        let serialText = reader.requiredString(
            "serial", hint: "the printer's serial number, on the printer's screen under Settings → Device")
        let accessCode = reader.secret(
            "accessCode", required: true,
            hint: "the 8-character LAN access code on the printer's screen (Settings → WLAN / LAN Only), "
                + "e.g. \"${BAMBU_ACCESS_CODE}\"")
        let fingerprint = CertificateFingerprint.read(
            reader,
            hint: "get it with: openssl s_client -connect \(host.isEmpty ? "PRINTER" : host):\(port) "
                + "</dev/null | openssl x509 -fingerprint -sha256 -noout")
        let insecure = reader.bool("insecure", default: false)
        if insecure && CertificateFingerprint.given(reader) {
            reader.problem("insecure", "use either certificateSHA256 (pinned) or insecure: true, not both")
        }
        let slug = reader.string("slug")
        let offlineGrace = reader.duration("offlineGrace", default: 60, range: 1...86_400)
        let offlineTimeout = reader.duration("offlineTimeout", default: 3600, range: 1...604_800)
        if offlineTimeout < offlineGrace {
            reader.problem("offlineTimeout", "must not be shorter than offlineGrace")
        }
        let layerText = reader.choice("layerText", BambuLayerText.allCases.map(\.rawValue), default: "details")
        reader.finish()

        let serial = serialText.uppercased()
        if !serial.isEmpty,
            !serial.unicodeScalars.allSatisfy({ ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
            )
        {
            reader.problem(
                "serial", "\"\(serialText)\" is not a serial number (letters and digits only, e.g. 01P00A000000001)")
            return nil
        }
        if let slug, !ContentRules.isValidSlug(slug) {
            reader.problem("slug", "\"\(slug)\" must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$")
            return nil
        }
        guard !host.isEmpty, !serial.isEmpty, let accessCode else { return nil }
        if host.contains(where: { $0 == " " || $0 == "/" }) {
            reader.problem("host", "\"\(host)\" is not a host name or IP address (no scheme, no path)")
            return nil
        }
        return BambuPrinterConfiguration(
            name: entry.name, host: host, port: port, serial: serial, accessCode: accessCode,
            fingerprint: fingerprint, insecure: insecure, slug: slug, configPath: entry.path,
            mapper: BambuActivityMapper.Settings(
                offlineGrace: offlineGrace, offlineTimeout: offlineTimeout,
                layerText: BambuLayerText(rawValue: layerText) ?? .details))
    }
}

extension BambuPrinterConfiguration: CustomStringConvertible {
    /// Every field but the access code.
    public var description: String {
        "bambu \(name) \(host):\(port) serial=\(serial) slug=\(slug) security=\(security)"
    }
}
