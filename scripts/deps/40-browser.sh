#!/usr/bin/env bash
# Preview page tests: headless Chromium (loads the preview page, takes screenshots), Node.js
# (runs the page's interpolation function against the Swift display model), fonts so the
# screenshots render text, and systemd-analyze (checks examples/systemd/livebridge.service).
set -euo pipefail
source "$(dirname "$0")/common.sh"
packages=(chromium fonts-dejavu-core fonts-liberation2 fonts-inter systemd)
# Node.js: Debian's package, unless a node is already on the PATH (e.g. another distribution's).
command -v node >/dev/null || packages+=(nodejs)
apt_install "${packages[@]}"
