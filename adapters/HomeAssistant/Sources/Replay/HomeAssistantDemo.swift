import LiveBridgeCore

/// `livebridge demo`'s washer, written as Home Assistant's WebSocket messages; it plays through
/// the adapter's own replay mapping.
enum HomeAssistantDemo {
    /// A 30-minute washer: the program state drives the label, a percentage sensor the bar and a
    /// timer's `finishes_at` the end, as a Home Assistant would send them.
    static func lines(start: Double) -> [String] {
        var lines: [String] = []
        let header: JSONValue = [
            "homeassistant": [
                "entities": [
                    [
                        "entity": "input_select.washer_state", "slug": "ha-washer", "name": "Washer",
                        "startStates": ["washing", "rinsing", "spinning"], "endStates": ["finished", "idle"],
                        "progress": "sensor.washer_progress",
                        "remaining": ["entity": "timer.washer", "attribute": "finishes_at"],
                        "stateLabels": [
                            "washing": "Washing", "rinsing": "Rinsing", "spinning": "Spinning", "finished": "Done",
                        ],
                        "icon": "washer.fill", "color": "cyan",
                    ]
                ]
            ],
            "start": .number(start),
        ]
        lines.append(JSONWriter.string(header))
        func message(_ t: Double, _ event: JSONValue) {
            lines.append(
                JSONWriter.string(["t": .number(t), "dir": "in", "msg": ["type": "event", "id": 2, "event": event]]))
        }
        lines.append(
            JSONWriter.string([
                "t": 0.002, "dir": "out",
                "msg": [
                    "id": 2, "type": "subscribe_entities",
                    "entity_ids": ["input_select.washer_state", "sensor.washer_progress", "timer.washer"],
                ],
            ]))
        message(
            0.004,
            [
                "a": [
                    "input_select.washer_state": [
                        "s": "idle", "a": ["friendly_name": "Washer state"], "lc": .number(start),
                    ],
                    "sensor.washer_progress": [
                        "s": "0", "a": ["unit_of_measurement": "%", "friendly_name": "Washer progress"],
                        "lc": .number(start),
                    ],
                    "timer.washer": [
                        "s": "idle", "a": ["duration": "0:30:00", "friendly_name": "Washer"], "lc": .number(start),
                    ],
                ]
            ])
        let finishes = start + 5 + 1800
        message(5, ["c": ["input_select.washer_state": ["+": ["s": "washing", "lc": .number(start + 5)]]]])
        message(
            5.02,
            [
                "c": [
                    "timer.washer": [
                        "+": [
                            "s": "active", "lc": .number(start + 5.02),
                            "a": ["finishes_at": .string(RFC3339.format(finishes)), "remaining": "0:30:00"],
                        ]
                    ]
                ]
            ])
        var t = 65.0
        while t < 1805 {
            let elapsed = t - 5
            let percent = Int((elapsed / 1800 * 100).rounded(.down))
            message(
                t, ["c": ["sensor.washer_progress": ["+": ["s": .string(String(percent)), "lc": .number(start + t)]]]])
            if abs(elapsed - 960) < 30 {
                message(
                    t + 0.3,
                    ["c": ["input_select.washer_state": ["+": ["s": "rinsing", "lc": .number(start + t + 0.3)]]]])
            }
            if abs(elapsed - 1440) < 30 {
                message(
                    t + 0.3,
                    ["c": ["input_select.washer_state": ["+": ["s": "spinning", "lc": .number(start + t + 0.3)]]]])
            }
            t += 60
        }
        message(1805, ["c": ["timer.washer": ["+": ["s": "idle", "lc": .number(start + 1805)]]]])
        message(1805.2, ["c": ["sensor.washer_progress": ["+": ["s": "100", "lc": .number(start + 1805.2)]]]])
        message(1805.4, ["c": ["input_select.washer_state": ["+": ["s": "finished", "lc": .number(start + 1805.4)]]]])
        return lines
    }
}
