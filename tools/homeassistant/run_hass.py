#!/usr/bin/env python3
"""Runs `hass` as a child and makes sure it never outlives whoever started this script.

Used by the Swift test support (HomeAssistantInstance): the test process starts this script,
this script starts Home Assistant. SIGTERM/SIGINT are forwarded to hass (graceful stop, HA
saves .storage); if the parent process disappears (a crashed or killed test run), hass is
terminated too, so no Home Assistant is ever left behind holding a port.

    run_hass.py HASS_EXECUTABLE ARGS...
"""
import os
import signal
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: run_hass.py HASS_EXECUTABLE ARGS...", file=sys.stderr)
        return 2
    parent = os.getppid()
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
    stopping = {"at": None}

    def forward(signum, _frame):
        if stopping["at"] is None:
            stopping["at"] = time.monotonic()
        try:
            child.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    while True:
        try:
            return child.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        if stopping["at"] is None and os.getppid() != parent:
            forward(signal.SIGTERM, None)
        if stopping["at"] is not None and time.monotonic() - stopping["at"] > 30:
            child.kill()


if __name__ == "__main__":
    sys.exit(main())
