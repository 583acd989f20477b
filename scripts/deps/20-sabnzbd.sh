#!/usr/bin/env bash
# SABnzbd integration tests: a real SABnzbd 4.5 (Debian `sabnzbdplus` from bookworm-backports,
# contrib) with the `par2` and `unrar` (non-free) tools it refuses to download without. The
# project's own news server (tools/sabnzbd/nntpd.py) needs only python3 (10-base.sh).
#
# Debian's default sources carry only `main`, so this adds contrib/non-free and backports in a
# SEPARATE deb822 file (the stock one is not touched; delete the file to undo). Idempotent and
# quick when everything is installed.
set -euo pipefail
source "$(dirname "$0")/common.sh"

PACKAGES=(sabnzbdplus par2 unrar)
SOURCES_FILE=/etc/apt/sources.list.d/livebridge-test.sources
BASE_SOURCES=/etc/apt/sources.list.d/debian.sources

if [ -z "$(apt_missing "${PACKAGES[@]}")" ] && command -v sabnzbdplus >/dev/null && command -v par2 >/dev/null \
    && command -v unrar >/dev/null; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "20-sabnzbd.sh: need root or sudo to install ${PACKAGES[*]}" >&2; exit 1; }
    sudo="sudo"
fi

# URIs and keyring as the stock deb822 file has them; Debian's own otherwise.
main_uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$BASE_SOURCES" 2>/dev/null || true)
security_uri=$(awk '/^URIs:/ && $2 ~ /security/ {print $2; exit}' "$BASE_SOURCES" 2>/dev/null || true)
signed_by=$(awk '/^Signed-By:/ {print $2; exit}' "$BASE_SOURCES" 2>/dev/null || true)
main_uri=${main_uri:-http://deb.debian.org/debian}
security_uri=${security_uri:-http://deb.debian.org/debian-security}
signed_by=${signed_by:-/usr/share/keyrings/debian-archive-keyring.gpg}
sources=$(cat <<SOURCES
# Added by scripts/deps/20-sabnzbd.sh (LiveBridge SABnzbd tests). Safe to delete.
Types: deb
URIs: $main_uri
Suites: bookworm bookworm-updates
Components: contrib non-free
Signed-By: $signed_by

Types: deb
URIs: $main_uri
Suites: bookworm-backports
Components: main contrib non-free
Signed-By: $signed_by

Types: deb
URIs: $security_uri
Suites: bookworm-security
Components: contrib non-free
Signed-By: $signed_by
SOURCES
)
if [ ! -f "$SOURCES_FILE" ] || [ "$(cat "$SOURCES_FILE")" != "$sources" ]; then
    echo "writing $SOURCES_FILE (contrib, non-free, bookworm-backports)"
    printf '%s\n' "$sources" | $sudo tee "$SOURCES_FILE" >/dev/null
fi

echo "apt-get update (for $SOURCES_FILE)"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq -o Acquire::Retries=3 >/dev/null
touch "${TMPDIR:-/tmp}/livebridge-apt-updated"
echo "installing from bookworm-backports: ${PACKAGES[*]}"
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -t bookworm-backports "${PACKAGES[@]}" >/dev/null; then
    echo "20-sabnzbd.sh: backports install failed; trying bookworm's SABnzbd 3.7" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
fi
for tool in sabnzbdplus par2 unrar; do
    command -v "$tool" >/dev/null || { echo "20-sabnzbd.sh: $tool is still missing from PATH" >&2; exit 1; }
done
echo "sabnzbdplus $(dpkg-query -W -f='${Version}' sabnzbdplus) installed"
