import LiveBridgeCore
import LiveBridgeSinks
import Testing

/// The MQTT sink's pure parts: the card it publishes, the discovery configs and the registry of
/// published devices that decides what is removed when.
@Suite("MQTT sink: card, discovery and device registry")
struct MQTTDiscoveryTests {
    let topics = MQTTTopics(prefix: "livebridge", discoveryPrefix: "homeassistant")

    func frame(
        _ kind: FrameKind, content: JSONValue, outcome: ActivityOutcome? = nil, paused: Bool = false,
        finishesAt: Double? = nil
    ) -> ActivityFrame {
        var frame = ActivityFrame(
            slug: "dryer", name: "Dryer", kind: kind, activityState: kind == .end ? "ended" : "ongoing",
            patch: content, content: content, outcome: outcome, finishesAt: finishesAt, time: 1_781_517_600,
            reason: .structural, sequence: 1)
        frame.paused = paused
        return frame
    }

    @Test("object ids, node ids and topics are fixed by the prefix and the slug")
    func topicNames() {
        #expect(topics.entityID(.progress, "dryer") == "sensor.livebridge_dryer_progress")
        #expect(topics.entityID(.running, "sabnzbd-home") == "binary_sensor.livebridge_sabnzbd_home_running")
        #expect(topics.discovery(.finishesAt, "dryer") == "homeassistant/sensor/livebridge_dryer/finishes_at/config")
        #expect(topics.discovery(.running, "dryer") == "homeassistant/binary_sensor/livebridge_dryer/running/config")
        #expect(topics.status == "livebridge/status" && topics.state("dryer") == "livebridge/dryer/state")
        #expect(MQTTTopics(prefix: "home/LB", discoveryPrefix: "ha").objectStem("Bambu-01") == "home_lb_bambu_01")
        #expect(topics.legacyDiscovery("sabnzbd-home") == "homeassistant/sensor/livebridge_sabnzbd_home/config")
        #expect(topics.retainedTopics("dryer", discovery: false) == ["livebridge/dryer/state"])
    }

    @Test("a running card: percent, text, attributes' sources and an ISO finish with offset")
    func runningCard() {
        let content: JSONValue = [
            "template": "generic", "progress": 0.4, "state": "Drying", "icon": "mdi:tumble-dryer",
            "accent_color": "blue", "subtitle": "Low heat",
        ]
        let card = MQTTActivityCard(frame(.seed, content: content, finishesAt: 1_781_519_100))
        let state = card.statePayload
        #expect(state["name"] == "Dryer" && state["phase"] == "active" && state["running"] == true)
        #expect(state["percent"] == 40 && state["progress"] == 0.4 && state["status"] == "Drying")
        #expect(state["icon"] == "mdi:tumble-dryer" && state["color"] == "blue" && state["subtitle"] == "Low heat")
        #expect(state["finishes_at"] == "2026-06-15T10:25:00+00:00" && state["outcome"] == .null)
        #expect(state["content"] == content && state["state"] == "ongoing")
        let paused = MQTTActivityCard(frame(.update, content: ["progress": 0.4], paused: true))
        #expect(paused.statePayload["phase"] == "paused" && paused.statePayload["running"] == true)
        #expect(paused.status == "Paused", "no card text: the phase says it")
    }

    @Test("an ended card: not running, the outcome (also from the final frame before it), no finish")
    func endedCard() {
        let final = MQTTActivityCard(
            frame(.final, content: ["progress": 0.6, "state": "Failed: jam"], outcome: .failure, finishesAt: 5))
        #expect(final.statePayload["running"] == false && final.statePayload["outcome"] == "failure")
        #expect(final.statePayload["finishes_at"] == .null && final.status == "Failed: jam")
        let end = MQTTActivityCard(frame(.end, content: ["progress": 0.6]), outcome: .cancelled)
        #expect(end.outcome == .cancelled && end.status == "Cancelled" && end.statePayload["state"] == "ended")
        #expect(MQTTActivityCard(frame(.end, content: ["progress": 1])).outcome == .success)
        #expect(MQTTActivityCard(frame(.end, content: ["progress": 0.2])).outcome == .failure)
        let idle = MQTTActivityCard.idle(slug: "dryer", name: "Dryer", at: 0).statePayload
        #expect(idle["phase"] == "idle" && idle["running"] == false && idle["percent"] == .null)
        #expect(idle["status"] == "Idle" && idle["finishes_at"] == .null && idle["state"] == "idle")
    }

    @Test("the event says started, updated or ended, with the outcome")
    func events() {
        let end = frame(.final, content: ["progress": 1, "state": "Complete"], outcome: .success)
        let payload = MQTTActivityCard(end).eventPayload(.ended, frame: end)
        #expect(payload["event"] == "ended" && payload["outcome"] == "success" && payload["name"] == "Dryer")
        #expect(payload["status"] == "Complete" && payload["sequence"] == 1 && payload["kind"] == "final")
    }

    @Test("discovery configs: a device per activity via the bridge, no reserved attribute names")
    func configs() throws {
        let discovery = MQTTDiscovery(topics: topics)
        for entity in MQTTTopics.Entity.allCases {
            let config = discovery.config(entity, slug: "dryer", name: "Dryer")
            #expect(config["object_id"]?.stringValue == "livebridge_dryer_\(entity.rawValue)")
            #expect(config["unique_id"] == config["object_id"])
            #expect(config["device"]?["identifiers"] == ["livebridge_dryer"])
            #expect(config["device"]?["name"] == "Dryer" && config["device"]?["via_device"] == "livebridge")
            #expect(config["availability"]?.arrayValue?.first?["topic"] == "livebridge/status")
            #expect(config["state_topic"] == "livebridge/dryer/state")
            let template = config["json_attributes_template"]?.stringValue ?? ""
            for reserved in ["'state'", "'icon'", "'name'", "'unit_of_measurement'"] {
                #expect(!template.contains(reserved), "\(entity) uses the reserved attribute \(reserved)")
            }
        }
        #expect(discovery.config(.progress, slug: "dryer", name: "Dryer")["state_class"] == "measurement")
        #expect(discovery.config(.finishesAt, slug: "dryer", name: "Dryer")["device_class"] == "timestamp")
        #expect(discovery.bridgeConfig["device"]?["identifiers"] == ["livebridge"])
        #expect(discovery.bridgeConfig["state_topic"] == "livebridge/status")
    }

    @Test("the registry expires a slug not seen for the retention, and a sighting renews it")
    func expiry() {
        var registry = MQTTDeviceRegistry(retention: 100)
        let topicsOf = { (slug: String) in self.topics.retainedTopics(slug, discovery: true) }
        #expect(registry.saw("dryer", name: "Dryer", topics: topicsOf("dryer"), at: 0).isNew)
        _ = registry.saw("washer", name: "Washer", topics: topicsOf("washer"), at: 50)
        #expect(registry.nextExpiry == 100)
        #expect(registry.expire(at: 99.9).isEmpty)
        let again = registry.saw("dryer", name: "Dryer", topics: topicsOf("dryer"), at: 90)
        #expect(!again.isNew && !again.changed)
        #expect(registry.expire(at: 150) == ["washer"])
        #expect(registry.pendingClears == topicsOf("washer"))
        registry.cleared(topicsOf("washer"))
        #expect(registry.pendingClears.isEmpty && registry.nextExpiry == 190)
        #expect(registry.saw("dryer", name: "Tumble dryer", topics: topicsOf("dryer"), at: 91).changed)
    }

    @Test("the registry survives a restart (its JSON), reconciles changed topics and stays bounded")
    func persistence() {
        var registry = MQTTDeviceRegistry(retention: 100, capacity: 2)
        let old = topics.retainedTopics("a", discovery: true)
        _ = registry.saw("a", name: "A", topics: old, at: 1)
        _ = registry.saw("b", name: "B", topics: topics.retainedTopics("b", discovery: true), at: 2)
        let evicted = registry.saw("c", name: "C", topics: topics.retainedTopics("c", discovery: true), at: 3).evicted
        #expect(evicted == ["a"] && registry.devices.count == 2 && registry.pendingClears == old)
        var restored = MQTTDeviceRegistry(json: registry.json, retention: 100, capacity: 2)
        #expect(restored == registry)
        // Discovery switched off: the configs are cleared, the state topic stays until expiry.
        restored.reconcile { self.topics.retainedTopics($0, discovery: false) }
        #expect(restored.devices["b"]?.topics == ["livebridge/b/state"])
        #expect(restored.pendingClears.contains("homeassistant/sensor/livebridge_b/progress/config"))
        let garbage = MQTTDeviceRegistry(json: ["devices": ["x": ["name": 3], "y": "z"]], retention: 1)
        #expect(garbage.devices.isEmpty)
    }
}
