#!/usr/bin/env python3
"""Derives compact benchmark trajectories from the SABnzbd scenario recordings.

Reads `<fixtures>/<scenario>/truth.jsonl` (one line per 0.5 s poll of a real SABnzbd 4.5.0: the
ground-truth `progress`, SABnzbd's own `timeleft`, the `phase` and the active job's name) and
writes `bench/trajectories/sabnzbd-<scenario>.jsonl` in the `livebridge replay` "updates" format,
one observation per poll, time counted from the first poll:

    {"t": 0.507, "slug": "sabnzbd-home", "name": "SABnzbd", "state": "Downloading",
     "subtitle": "Steady.Job.A", "progress": 0.0123, "remaining": 69}

The mapping is the bench's stand-in for the SABnzbd adapter's (issue 9 swaps it for the adapter's
own replay once that is merged): downloading -> "Downloading" with `remaining` = timeleft (when
SABnzbd gives one), the first polls after an add ("waiting": the queue still says Idle while the
slot already says Downloading) -> "Downloading" without an estimate, queued/propagating ->
"Waiting", paused -> phase paused, checking/fetching/post-processing -> "Post-processing",
completed -> end (success), failed -> end (failure).

usage: bench/derive_sabnzbd.py /work/shared/fixtures/sabnzbd [scenario ...]
"""
import json
import os
import sys

SCENARIOS = ["a-steady", "c-two-jobs", "d-pause-resume", "f-failed"]
WAITING = {"waiting", "queued", "propagating", "idle"}
POST = {"checking", "fetching", "post-processing", "verifying", "repairing", "extracting"}


def seconds(clock):
    parts = [int(p) for p in clock.split(":")]
    total = 0
    for part in parts:
        total = total * 60 + part
    return total


def derive(rows):
    out = []
    start = rows[0]["t"]
    for row in rows:
        line = {"t": round(row["t"] - start, 3), "slug": "sabnzbd-home", "name": "SABnzbd"}
        phase = row["phase"]
        name = row.get("active_name")
        progress = round(float(row["progress"]), 5)
        if phase == "completed":
            line.update({"end": True, "outcome": "success", "state": "Completed", "progress": 1})
        elif phase in ("failed", "completed-with-failures"):
            line.update({"end": True, "outcome": "failure", "state": "Failed", "progress": progress})
        elif phase == "paused":
            line.update({"phase": "paused", "state": "Paused", "progress": progress})
        elif phase == "downloading" or phase == "stalled":
            line.update({"state": "Downloading" if phase == "downloading" else "Stalled", "progress": progress})
            left = seconds(row["timeleft"])
            if left > 0:
                line["remaining"] = left
        elif phase in POST:
            line.update({"state": "Post-processing", "progress": progress})
        elif phase in WAITING:
            slot = row.get("status")
            line.update({"state": "Downloading" if slot == "Downloading" else "Waiting", "progress": progress})
        else:
            raise SystemExit(f"unknown phase {phase!r}")
        if name and phase not in ("completed", "failed", "completed-with-failures"):
            line["subtitle"] = name
        out.append(line)
        if "end" in line:
            break
    return out


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    root = sys.argv[1]
    scenarios = sys.argv[2:] or SCENARIOS
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trajectories")
    for scenario in scenarios:
        with open(os.path.join(root, scenario, "truth.jsonl")) as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        lines = derive(rows)
        target = os.path.join(here, f"sabnzbd-{scenario}.jsonl")
        with open(target, "w") as handle:
            for line in lines:
                handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        print(f"{target}: {len(lines)} observations over {lines[-1]['t']:.1f} s")


if __name__ == "__main__":
    main()
