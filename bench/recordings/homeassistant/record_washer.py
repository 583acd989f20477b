#!/usr/bin/env python3
"""Records a washer cycle from a real Home Assistant (2024.3.3) as a `livebridge replay` JSONL.

Run with the HA venv's python (needs `websockets`). HA must run with the harness configuration
(tools/homeassistant/configuration.yaml) plus `washer_package.yaml` (this folder) in
config/packages/ — it adds input_number.washer_progress and the template sensor
sensor.washer_progress (whole %, state_class measurement), next to the harness's
input_number.washer_remaining_min -> sensor.washer_remaining (whole min) and timer.washer.

The driver changes entities only over the REST API (POST /api/services/...), so the WebSocket
stream recorded here holds only what HA itself sends to a `subscribe_entities` client:

  - t = BEGIN: input_select.washer_state -> washing, timer.washer started with the program
    duration, remaining = program minutes, progress = 0
  - every 30 s: input_number.washer_progress := whole percent (non-linear: washing 50 % of the
    time -> 0-45 %, rinsing 30 % -> 45-75 %, spinning 20 % -> 75-100 %)
  - every 60 s: input_number.washer_remaining_min := ceil(remaining seconds / 60)
  - state changes at the phase boundaries; at the end the timer goes idle on its own, then
    progress 100, remaining 0, state finished.

    record_washer.py --base http://127.0.0.1:18123 --token-file TOKEN --program-s 480 \
        --out washer-8m.jsonl --truth washer-8m.truth.jsonl
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import time
import urllib.request

from websockets.asyncio.client import connect

ENTITIES = ["input_select.washer_state", "sensor.washer_progress", "sensor.washer_remaining", "timer.washer"]
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def progress_at(frac: float) -> float:
    if frac <= 0.5:
        return frac / 0.5 * 45
    if frac <= 0.8:
        return 45 + (frac - 0.5) / 0.3 * 30
    return min(100.0, 75 + (frac - 0.8) / 0.2 * 25)


def program_at(frac: float) -> str:
    return "washing" if frac < 0.5 else "rinsing" if frac < 0.8 else "spinning"


def hms(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="http://127.0.0.1:18123")
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--program-s", type=float, default=480)
    ap.add_argument("--begin", type=float, default=5.0)
    ap.add_argument("--progress-every", type=float, default=30)
    ap.add_argument("--remaining-every", type=float, default=60)
    ap.add_argument("--tail", type=float, default=5.0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--truth", required=True)
    a = ap.parse_args()
    token = open(a.token_file).read().strip()
    base = a.base.rstrip("/")

    lines: list[dict] = []
    truth: list[dict] = []
    start = time.time()

    def rel() -> float:
        return round(time.time() - start, 3)

    def call(domain: str, service: str, data: dict) -> tuple[int, float, float]:
        t_sent = time.time()
        req = urllib.request.Request(f"{base}/api/services/{domain}/{service}", data=json.dumps(data).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                                     method="POST")
        with _OPENER.open(req, timeout=15) as resp:
            resp.read()
            return resp.status, t_sent, time.time()

    header = {"homeassistant": {"entities": [{
        "entity": "input_select.washer_state", "slug": "washer", "name": "Washer",
        "startStates": ["washing", "rinsing", "spinning"], "endStates": ["finished", "idle"],
        "progress": "sensor.washer_progress",
        "remaining": {"entity": "sensor.washer_remaining", "unit": "min"},
        "stateLabels": {"washing": "Washing", "rinsing": "Rinsing", "spinning": "Spinning", "finished": "Done"},
        "icon": "mdi:washing-machine"}]},
        "start": round(start, 3),
        "source": "real Home Assistant 2024.3.3 (bench/recordings/homeassistant/record_washer.py)"}

    ws_url = base.replace("http", "ws", 1) + "/api/websocket"
    async with connect(ws_url, max_size=None) as ws:
        msg = json.loads(await ws.recv())
        assert msg["type"] == "auth_required", msg
        await ws.send(json.dumps({"type": "auth", "access_token": token}))
        msg = json.loads(await ws.recv())
        assert msg["type"] == "auth_ok", msg
        header["ha_version"] = msg.get("ha_version")
        start = time.time()
        header["start"] = round(start, 3)
        lines.append(header)
        sub = {"id": 2, "type": "subscribe_entities", "entity_ids": ENTITIES}
        await ws.send(json.dumps(sub))
        lines.append({"t": rel(), "dir": "out", "msg": sub})

        done = asyncio.Event()

        async def reader() -> None:
            async for raw in ws:
                t = rel()
                lines.append({"t": t, "dir": "in", "msg": json.loads(raw)})
                if done.is_set():
                    pass

        rtask = asyncio.create_task(reader())

        async def act(kind: str, domain: str, service: str, data: dict, **extra) -> None:
            status, t_sent, t_done = await asyncio.to_thread(call, domain, service, data)
            truth.append({"t": round(t_sent - start, 3), "t_answer": round(t_done - start, 3), "epoch": round(t_sent, 3),
                          "action": kind, "call": f"{domain}.{service}", "data": data, "http": status, **extra})

        # reset to a clean idle state first (also recorded: what HA sends when values change)
        await asyncio.sleep(1.0)
        P = a.program_s
        await act("reset", "input_number", "set_value", {"entity_id": "input_number.washer_progress", "value": 0})
        await act("reset", "input_number", "set_value", {"entity_id": "input_number.washer_remaining_min", "value": 0})
        await asyncio.sleep(max(0, a.begin - (time.time() - start)))
        t0 = time.time()
        minutes0 = math.ceil(P / 60)
        await act("start", "input_select", "select_option", {"entity_id": "input_select.washer_state", "option": "washing"},
                  program="washing", program_s=P)
        await act("start", "timer", "start", {"entity_id": "timer.washer", "duration": hms(P)}, finishes_at_epoch=round(t0 + P, 3))
        await act("remaining", "input_number", "set_value", {"entity_id": "input_number.washer_remaining_min", "value": minutes0},
                  true_remaining_s=round(P - (time.time() - t0), 3))

        schedule = []
        k = 1
        while k * a.progress_every < P:
            schedule.append((k * a.progress_every, "progress"))
            k += 1
        k = 1
        while k * a.remaining_every < P:
            schedule.append((k * a.remaining_every + 0.2, "remaining"))
            k += 1
        for frac_b in (0.5, 0.8):
            schedule.append((frac_b * P + 0.1, "program"))
        schedule.sort()
        for at, kind in schedule:
            await asyncio.sleep(max(0, t0 + at - time.time()))
            el = time.time() - t0
            frac = el / P
            if kind == "progress":
                exact = progress_at(frac)
                await act("progress", "input_number", "set_value",
                          {"entity_id": "input_number.washer_progress", "value": int(exact)},
                          true_progress=round(exact / 100, 5), elapsed_s=round(el, 3))
            elif kind == "remaining":
                rem = P - el
                await act("remaining", "input_number", "set_value",
                          {"entity_id": "input_number.washer_remaining_min", "value": math.ceil(rem / 60)},
                          true_remaining_s=round(rem, 3), elapsed_s=round(el, 3))
            else:
                prog = program_at(frac)
                await act("program", "input_select", "select_option",
                          {"entity_id": "input_select.washer_state", "option": prog}, program=prog, elapsed_s=round(el, 3))
        # the timer finishes by itself at t0 + P
        await asyncio.sleep(max(0, t0 + P + 0.5 - time.time()))
        await act("end", "input_number", "set_value", {"entity_id": "input_number.washer_progress", "value": 100},
                  true_progress=1.0)
        await act("end", "input_number", "set_value", {"entity_id": "input_number.washer_remaining_min", "value": 0},
                  true_remaining_s=0)
        await asyncio.sleep(0.5)
        await act("end", "input_select", "select_option", {"entity_id": "input_select.washer_state", "option": "finished"},
                  program="finished")
        await asyncio.sleep(a.tail)
        done.set()
        rtask.cancel()

    with open(a.out, "w") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")
    with open(a.truth, "w") as fh:
        fh.write(json.dumps({"program_start_epoch": round(t0, 3), "program_start_t": round(t0 - start, 3),
                             "program_s": P, "program_end_epoch": round(t0 + P, 3),
                             "phases": {"washing": [0, 0.5 * P], "rinsing": [0.5 * P, 0.8 * P], "spinning": [0.8 * P, P]},
                             "progress_curve": "washing 0-45 %, rinsing 45-75 %, spinning 75-100 % (linear within each)"}) + "\n")
        for row in truth:
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
