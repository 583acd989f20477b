# Shared helpers for the dependency scripts (sourced, not run).
# apt_install PKG...: installs the packages that are missing, through sudo when not root,
# running `apt-get update` at most once per `make deps`.
apt_missing() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    echo "${missing[@]:-}"
}

apt_install() {
    local missing
    missing=$(apt_missing "$@")
    [ -z "$missing" ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "need root or sudo to install: $missing" >&2; return 1; }
        sudo="sudo"
    fi
    local stamp="${TMPDIR:-/tmp}/livebridge-apt-updated"
    if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +60 2>/dev/null)" ]; then
        echo "apt-get update"
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && touch "$stamp"
    fi
    echo "installing: $missing"
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}
