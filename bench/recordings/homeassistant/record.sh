#!/usr/bin/env bash
# Starts a real Home Assistant 2024.3.3 with the harness config + washer_package.yaml, onboards it,
# records one washer cycle with record_washer.py, stops HA. Usage (from the repo root):
#   bash bench/recordings/homeassistant/record.sh OUT.jsonl TRUTH.jsonl [PROGRAM_S] [PORT]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=$1; TRUTH=$2; PROGRAM_S=${3:-480}; PORT=${4:-18123}
VENV=${LIVEBRIDGE_HA_VENV:-$HOME/.cache/livebridge/ha-venv}
HOME_DIR=$(mktemp -d /tmp/ha-rec.XXXXXX)
mkdir -p "$HOME_DIR/config/.storage" "$HOME_DIR/config/packages"
sed "s/__HA_PORT__/$PORT/" "$ROOT/tools/homeassistant/configuration.yaml" > "$HOME_DIR/config/configuration.yaml"
cp "$HERE/washer_package.yaml" "$HOME_DIR/config/packages/washer.yaml"
echo '{"version": 4, "minor_version": 1, "key": "onboarding", "data": {"done": ["core_config"]}}' \
  > "$HOME_DIR/config/.storage/onboarding"
"$VENV/bin/python" "$ROOT/tools/homeassistant/run_hass.py" "$VENV/bin/hass" -c "$HOME_DIR/config" --skip-pip \
  > "$HOME_DIR/hass.out" 2>&1 &
HASS=$!
echo "HA_HOME=$HOME_DIR RUN_HASS_PID=$HASS"
trap 'kill -TERM $HASS 2>/dev/null || true; wait $HASS 2>/dev/null || true' EXIT
BASE=http://127.0.0.1:$PORT
"$VENV/bin/python" "$ROOT/tools/homeassistant/ha_harness.py" wait-http --base $BASE --pid $HASS \
  --log "$HOME_DIR/config/home-assistant.log"
"$VENV/bin/python" "$ROOT/tools/homeassistant/ha_harness.py" onboard --base $BASE --home "$HOME_DIR"
"$VENV/bin/python" "$ROOT/tools/homeassistant/ha_harness.py" wait-running --base $BASE --token-file "$HOME_DIR/token" \
  --entities input_select.washer_state,sensor.washer_progress,sensor.washer_remaining,timer.washer
curl -s --noproxy '*' -H "Authorization: Bearer $(cat "$HOME_DIR/token")" $BASE/api/config \
  | "$VENV/bin/python" -c 'import json,sys; print("HA_VERSION=" + json.load(sys.stdin)["version"])'
"$VENV/bin/python" "$HERE/record_washer.py" --base $BASE --token-file "$HOME_DIR/token" --program-s "$PROGRAM_S" \
  --out "$OUT" --truth "$TRUTH"
echo "recorded $(wc -l < "$OUT") lines to $OUT"
