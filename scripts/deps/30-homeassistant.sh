#!/usr/bin/env bash
# Home Assistant integration tests: a real Home Assistant Core 2024.3.3 from PyPI in a virtualenv
# cached between runs. The tests start it themselves (tools/homeassistant/), onboarded, with a token.
#
# The venv lives in $LIVEBRIDGE_HA_VENV (default ~/.cache/livebridge/ha-venv, ~630 MB) and is
# rebuilt only when tools/homeassistant/requirements.lock changes: the first run takes about a
# minute (pip), later runs a fraction of a second.
#
# The MQTT integration's client, paho-mqtt 1.6.1 (what HA 2024.3 requires; 2.x breaks it), is
# installed on top of the lock rather than in it, so that adding it did not rebuild existing venvs.
set -euo pipefail
source "$(dirname "$0")/common.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
LOCK="$ROOT/tools/homeassistant/requirements.lock"
VENV="${LIVEBRIDGE_HA_VENV:-$HOME/.cache/livebridge/ha-venv}"
PYTHON="${HA_PYTHON:-python3}"
MQTT_CLIENT="paho-mqtt==1.6.1"

# The MQTT integration's client (for the MQTT sink's discovery tests), when missing or another version.
ensure_mqtt_client() {
    "$VENV/bin/python" -c 'import sys, paho.mqtt; sys.exit(paho.mqtt.__version__ != "1.6.1")' 2>/dev/null && return 0
    echo "installing $MQTT_CLIENT into $VENV"
    "$VENV/bin/pip" install --disable-pip-version-check --no-input "$MQTT_CLIENT" >/dev/null
}

want="$(sha256sum "$LOCK" | cut -d' ' -f1)"
if [ -x "$VENV/bin/hass" ] && [ "$(cat "$VENV/.livebridge-lock" 2>/dev/null)" = "$want" ]; then
    ensure_mqtt_client
    exit 0
fi

command -v "$PYTHON" >/dev/null || apt_install python3
version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
case "$version" in
    3.11) ;;
    3.12) echo "warning: Python 3.12; requirements.lock was made on 3.11" >&2 ;;
    *) echo "Home Assistant 2024.3.3 needs Python 3.11 (found $version); set HA_PYTHON" >&2; exit 1 ;;
esac
# Debian's python3 ships ensurepip separately.
"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv

started=$(date +%s)
echo "installing Home Assistant 2024.3.3 into $VENV (first run: about a minute, ~630 MB)"
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
"$PYTHON" -m venv "$VENV"
log="$(dirname "$VENV")/ha-pip-install.log"
if ! "$VENV/bin/pip" install --disable-pip-version-check --no-input -r "$LOCK" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "pip install of tools/homeassistant/requirements.lock failed (full log: $log)" >&2
    exit 1
fi
ensure_mqtt_client
echo "$want" >"$VENV/.livebridge-lock"
echo "Home Assistant venv ready in $(($(date +%s) - started)) s"
