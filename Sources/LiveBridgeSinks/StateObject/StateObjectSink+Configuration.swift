import LiveBridgeCore
public import LiveBridgeNet

extension StateObjectSink {
    /// Settings from the sink's config entry.
    public struct Configuration: Sendable {
        public var name: String
        /// Base URL without a trailing slash.
        public var baseURL: String
        public var apiKey: String
        /// Header the key travels in.
        public var apiKeyHeader: String
        public var paths: StateObjectPaths
        public var brand: StateObjectBrand
        public var render: StateObjectRenderOptions
        public var tls: TLSOptions
        public var timeout: Double
        /// Config path of the key, for messages (`sinks[1].apiKey`).
        public var keyPath: String

        public init(
            name: String, baseURL: String, apiKey: String, apiKeyHeader: String = "x-api-key",
            paths: StateObjectPaths = StateObjectPaths(), brand: StateObjectBrand = StateObjectBrand(),
            render: StateObjectRenderOptions = StateObjectRenderOptions(), tls: TLSOptions = TLSOptions(),
            timeout: Double = 15, keyPath: String = "apiKey"
        ) {
            self.name = name
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.apiKey = apiKey
            self.apiKeyHeader = apiKeyHeader
            self.paths = paths
            self.brand = brand
            self.render = render
            self.tls = tls
            self.timeout = timeout
            self.keyPath = keyPath
        }
    }
}
