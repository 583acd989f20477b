#!/usr/bin/env bash
# Build and core test dependencies: the C libraries LiveBridge links, the TLS MQTT broker the
# tests start, and the tools the tests use to make certificates.
set -euo pipefail
source "$(dirname "$0")/common.sh"
apt_install libcurl4-openssl-dev libmosquitto-dev libssl-dev pkg-config mosquitto mosquitto-clients openssl python3
# The packaged broker must not hold port 1883 or write to /var/log during tests; tests start their own.
if command -v systemctl >/dev/null && systemctl is-active --quiet mosquitto 2>/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then systemctl stop mosquitto || true; else sudo systemctl stop mosquitto || true; fi
fi
