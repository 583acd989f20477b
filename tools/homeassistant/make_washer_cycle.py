#!/usr/bin/env python3
"""Writes a 30-minute washer cycle as a Home Assistant replay (JSONL, `livebridge replay` format).

The trajectory imitates what Home Assistant sends for a washing machine integration (Home
Connect, Miele, SmartThings) plus a helper timer: the program state (washing → rinsing →
spinning → finished), a progress sensor in whole percent updated once a minute (not linear in
time: rinsing and spinning go faster than washing), and a 30-minute timer whose `finishes_at`
is the absolute end. Messages use the compressed `subscribe_entities` stream exactly as
HA 2024.3 formats it (see Tests/LiveBridgeHomeAssistantTests/Fixtures/subscribe_entities.jsonl).

    python3 tools/homeassistant/make_washer_cycle.py > bench/recordings/homeassistant/washer_cycle_30min.jsonl
"""
import datetime
import json

START = 1796000000.0  # recording clock at t = 0 (2026-11-30T00:53:20Z)
CYCLE = 30 * 60
BEGIN = 5.0  # the program starts 5 s into the recording


def iso(ts: float) -> str:
    return datetime.datetime.fromtimestamp(int(ts), datetime.timezone.utc).isoformat()


def progress_at(elapsed: float) -> int:
    """Washing 0-15 min → 0-45 %, rinsing 15-24 → 45-75 %, spinning 24-30 → 75-100 %."""
    minutes = elapsed / 60
    if minutes <= 15:
        value = minutes * 3.0
    elif minutes <= 24:
        value = 45 + (minutes - 15) * 30 / 9
    else:
        value = 75 + (minutes - 24) * 25 / 6
    return min(100, int(value))


def program_at(elapsed: float) -> str:
    minutes = elapsed / 60
    return "washing" if minutes < 15 else "rinsing" if minutes < 24 else "spinning"


lines = []


def record(t: float, event: dict) -> None:
    lines.append({"t": round(t, 3), "dir": "in", "msg": {"type": "event", "event": event, "id": 2}})


header = {
    "homeassistant": {
        "entities": [
            {
                "entity": "input_select.washer_state",
                "slug": "washer",
                "name": "Washer",
                "startStates": ["washing", "rinsing", "spinning"],
                "endStates": ["finished", "idle"],
                "progress": "sensor.washer_progress",
                "remaining": {"entity": "timer.washer", "attribute": "finishes_at"},
                "stateLabels": {"washing": "Washing", "rinsing": "Rinsing", "spinning": "Spinning", "finished": "Done"},
                "icon": "mdi:washing-machine",
            }
        ]
    },
    "start": START,
}
lines.append(header)
lines.append({"t": 0.002, "dir": "out", "msg": {"id": 2, "type": "subscribe_entities",
                                                 "entity_ids": ["input_select.washer_state", "sensor.washer_progress", "timer.washer"]}})
lines.append({"t": 0.003, "dir": "in", "msg": {"id": 2, "type": "result", "success": True, "result": None}})
record(0.004, {"a": {
    "input_select.washer_state": {"s": "idle", "a": {"options": ["idle", "washing", "rinsing", "spinning", "finished"],
                                                    "friendly_name": "Washer state"}, "c": "01M8MYES3P6GQQAB8229HDMJ0T",
                                  "lc": START - 3600},
    "sensor.washer_progress": {"s": "0", "a": {"state_class": "measurement", "unit_of_measurement": "%",
                                               "friendly_name": "Washer progress"}, "c": "01M8MYES3Q1KDXJG9FFEW0XNHN",
                               "lc": START - 3600},
    "timer.washer": {"s": "idle", "a": {"duration": "0:30:00", "editable": False, "icon": "mdi:washing-machine",
                                        "friendly_name": "Washer"}, "c": "01M8MYESQ1M3QBDP9DJB74W626", "lc": START - 3600},
}})
t0 = START + BEGIN
record(BEGIN, {"c": {"input_select.washer_state": {"+": {"s": "washing", "lc": t0 + 0.01, "c": "01M8MYEV38ZBXQGQQA34DEK3SD"}}}})
record(BEGIN + 0.02, {"c": {"timer.washer": {"+": {"s": "active", "lc": t0 + 0.02, "c": "01M8MYETGDQ07RE689HAS91XFX",
                                                  "a": {"finishes_at": iso(t0 + CYCLE), "remaining": "0:30:00"}}}}})
last_progress = 0
last_program = "washing"
minute = 1
while minute * 60 < CYCLE:
    elapsed = minute * 60 + 0.4  # the sensor reports a little after each minute
    now = t0 + elapsed
    program = program_at(elapsed)
    if program != last_program:
        record(elapsed - 0.3 + BEGIN, {"c": {"input_select.washer_state": {"+": {"s": program, "lc": now - 0.3}}}})
        last_program = program
    value = progress_at(elapsed)
    if value != last_progress:
        record(elapsed + BEGIN, {"c": {"sensor.washer_progress": {"+": {"s": str(value), "lc": now}}}})
        last_progress = value
    minute += 1
end = t0 + CYCLE
record(CYCLE + BEGIN + 0.002, {"c": {"timer.washer": {"+": {"s": "idle", "lc": end + 0.002},
                                                     "-": {"a": ["remaining", "finishes_at"]}}}})
record(CYCLE + BEGIN + 0.5, {"c": {"sensor.washer_progress": {"+": {"s": "100", "lc": end + 0.5}}}})
record(CYCLE + BEGIN + 1.0, {"c": {"input_select.washer_state": {"+": {"s": "finished", "lc": end + 1.0}}}})
for line in lines:
    print(json.dumps(line))
