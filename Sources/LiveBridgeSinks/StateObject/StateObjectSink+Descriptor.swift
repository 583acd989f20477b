import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet

extension StateObjectSink {
    /// `type: "state-object"`: the state-object Live Activity service.
    public static var descriptor: SinkDescriptor {
        SinkDescriptor(
            type: "state-object", summary: "state-object Live Activity service (progress and countdown layouts)"
        ) {
            entry, services in
            let reader = entry.reader
            let url = reader.requiredString("url", hint: "the service's base URL, e.g. \"https://api.example.com\"")
            let key = reader.secret(
                "apiKey", required: true, hint: "the service's API key, e.g. \"${STATE_OBJECT_API_KEY}\"")
            let header = reader.string("apiKeyHeader", default: "x-api-key")
            let timeout = reader.duration("timeout", default: 15, range: 1...300)
            let tls = TLSOptions.read(reader)
            if !url.isEmpty && !url.hasPrefix("http://") && !url.hasPrefix("https://") {
                reader.problem("url", "\"\(url)\" is not an http(s) URL")
            }
            let paths = paths(reader.object("paths"))
            let brand = brand(reader.object("brand"))
            var render = StateObjectRenderOptions()
            if let countdown = reader.object("countdown") {
                render.countdown = countdown.bool("enabled", default: true)
                render.countdownStyle = countdown.choice(
                    "style", ["hms", "days", "hours", "months", "years", "auto"], default: "hms")
                render.completionText = countdown.string("completionText", default: "Done")
                countdown.finish()
            }
            render.buttonStyling = reader.bool("buttonStyling", default: true)
            reader.finish()
            guard let key, !url.isEmpty else { return nil }
            let health = services.health.reporter(
                kind: "sink", name: entry.name, type: "state-object", clock: services.clock)
            return StateObjectSink(
                configuration: .init(
                    name: entry.name, baseURL: url, apiKey: key, apiKeyHeader: header, paths: paths, brand: brand,
                    render: render, tls: tls, timeout: timeout, keyPath: entry.path + ".apiKey"),
                transport: services.http, store: services.store, clock: services.clock,
                logger: services.logger.child("sink.\(entry.name)"), health: health)
        }
    }

    /// Reads `paths: {start, update, end, branding}`, each `"METHOD /path"`.
    private static func paths(_ reader: ConfigReader?) -> StateObjectPaths {
        var paths = StateObjectPaths()
        guard let reader else { return paths }
        func route(_ key: String, _ keyPath: WritableKeyPath<StateObjectPaths, StateObjectRoute>) {
            guard let text = reader.string(key) else { return }
            guard let route = StateObjectRoute(text) else {
                reader.problem(
                    key,
                    "\"\(text)\" is not \"METHOD /path\" (e.g. \"PATCH /api/activities/{id}\"; methods: "
                        + "GET, POST, PUT, PATCH, DELETE)")
                return
            }
            if key == "start" && route.addressesOne {
                reader.problem(key, "the start route cannot contain {id}: the service makes the id")
                return
            }
            paths[keyPath: keyPath] = route
        }
        route("start", \.start)
        route("update", \.update)
        route("end", \.end)
        route("branding", \.branding)
        reader.finish()
        return paths
    }

    /// Reads `brand: {title, name, url, logo, description, color}`.
    private static func brand(_ reader: ConfigReader?) -> StateObjectBrand {
        guard let reader else { return StateObjectBrand() }
        var brand = StateObjectBrand(
            title: reader.string("title"), name: reader.string("name"), url: reader.string("url"),
            logo: reader.string("logo"), description: reader.string("description"))
        if let color = reader.string("color") {
            if ContentRules.hexColor(color) == nil {
                reader.problem("color", "\"\(color)\" is not a colour; use #RRGGBB or a name (blue, green, …)")
            } else {
                brand.color = color
            }
        }
        reader.finish()
        return brand
    }
}
