#!/usr/bin/env bash
# The package test (`make package-test`): installs the .deb into a minimal Debian 12 root that has
# never seen a Swift toolchain, with apt (so Depends: must resolve from Debian alone), and runs
# the installed program there: `version`, `check` on the shipped config (which must fail on its
# placeholder key, exit 78), `demo --once`. Then removes and purges the package.
#
# The root comes from `debootstrap --variant=minbase bookworm` once (about 2 minutes, ~200 MB)
# and is cached as a tarball in $LIVEBRIDGE_DEBIAN_ROOT (default
# ~/.cache/livebridge/debian-bookworm-minbase.tar); every run unpacks a fresh copy. Needs root
# (debootstrap, chroot, mount) and Debian's mirror.
#
#   scripts/package/test.sh path/to/livebridge_<version>_<arch>.deb
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "package-test: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mount /proc): run \`sudo make package-test\`"
deb=${1:-}
[ -f "$deb" ] || fail "no package given (usage: $0 livebridge_<version>_<arch>.deb); \`make package-test\` builds it"
for tool in debootstrap objdump; do command -v "$tool" >/dev/null || fail "$tool is missing — run \`make deps\`"; done

started=$(date +%s)
cache=${LIVEBRIDGE_DEBIAN_ROOT:-$HOME/.cache/livebridge/debian-bookworm-minbase.tar}
work=${PACKAGE_TEST_DIR:-.build/package-test}
root="$work/root"
sources=/etc/apt/sources.list.d/debian.sources
mirror=${DEBIAN_MIRROR:-$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$sources" 2>/dev/null || true)}
security=${DEBIAN_SECURITY_MIRROR:-$(awk '/^URIs:/ && $2 ~ /security/ {print $2; exit}' "$sources" 2>/dev/null || true)}
mirror=${mirror:-http://deb.debian.org/debian}
security=${security:-http://deb.debian.org/debian-security}

step() { echo "== $* ($(($(date +%s) - started)) s)"; }

if [ ! -f "$cache" ]; then
    step "debootstrap --variant=minbase bookworm from $mirror (once; cached in $cache)"
    fresh="$cache.d"
    rm -rf --one-file-system "$fresh"
    mkdir -p "$(dirname "$cache")"
    log="$cache.log"
    if ! debootstrap --variant=minbase bookworm "$fresh" "$mirror" >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        fail "debootstrap failed (full log: $log)"
    fi
    cat >"$fresh/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SOURCES
    tar -C "$fresh" -cf "$cache.tmp" .
    mv "$cache.tmp" "$cache"
    rm -rf --one-file-system "$fresh"
fi

step "unpacking a fresh Debian 12 root into $root"
mounted=""
cleanup() { if [ -n "$mounted" ]; then umount "$root/proc" || true; fi; }
trap cleanup EXIT
if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
rm -rf --one-file-system "$root"
mkdir -p "$root"
tar -C "$root" -xf "$cache"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mounted=1
package=$(basename "$deb")
cp "$deb" "$root/tmp/$package"

# Everything below runs inside the root, with a clean environment.
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"; }

step "no Swift in the root"
if in_root sh -c 'command -v swift || ls /usr/lib/swift /opt/swift' >/dev/null 2>&1; then
    fail "the root has a Swift toolchain; the test would prove nothing"
fi
echo "no swift on PATH, no /usr/lib/swift, no /opt/swift"

step "apt-get install ./$package"
in_root apt-get update -qq
# As a user would: Depends: and Recommends: (ca-certificates, for HTTPS to the push services).
in_root apt-get install -y -q "/tmp/$package" 2>&1 \
    | grep -vE '^(Reading|Building|Selecting|Preparing|Unpacking|\(Reading|Get:|debconf: delaying|E: Can not write log)' || true
in_root dpkg-query -W -f='${Package} ${Version} ${Status}\n' livebridge | grep -q 'install ok installed' \
    || fail "livebridge is not installed"
in_root dpkg-query -W -f='Depends: ${Depends}\n' livebridge

step "ldd /usr/bin/livebridge"
in_root ldd /usr/bin/livebridge | tee "$work/ldd.txt"
if grep -q 'not found' "$work/ldd.txt"; then fail "a library the binary needs is not installed"; fi

step "each library the binary links (NEEDED) is from a package in Depends:"
depends=$(in_root dpkg-query -W -f='${Depends}' livebridge)
in_depends() {  # a package named in Depends: (each entry "name" or "name (>= version)")
    local entry IFS=,
    for entry in $depends; do
        entry=${entry# }
        [ "${entry%% *}" = "$1" ] && return 0
    done
    return 1
}
owner() {  # the package holding a library, with or without merged /usr
    in_root dpkg -S "$1" 2>/dev/null || in_root dpkg -S "/usr$1" 2>/dev/null || in_root dpkg -S "${1#/usr}" 2>/dev/null
}
for soname in $(objdump -p "$root/usr/bin/livebridge" | awk '/NEEDED/ {print $2}'); do
    # "libc.so.6 => /lib/…/libc.so.6 (…)", or the loader as "/lib64/ld-linux-x86-64.so.2 (…)"
    path=$(awk -v so="$soname" '($1 == so && $2 == "=>") {print $3} (substr($1, length($1) - length(so)) == "/" so) {print $1}' "$work/ldd.txt")
    [ -n "$path" ] || fail "$soname: not resolved by ldd"
    package=$(owner "$path" | head -n 1 | cut -d: -f1)
    [ -n "$package" ] || fail "$soname ($path) belongs to no package"
    in_depends "$package" || fail "$soname is from $package, which Depends: lacks"
    echo "$soname  $path  $package"
done

in_root dpkg-query -W -f='${Recommends}\n' livebridge | grep -q ca-certificates && [ -s "$root/etc/ssl/certs/ca-certificates.crt" ] \
    || fail "ca-certificates (recommended, for HTTPS) is not installed"

step "what the package installed"
mode=$(stat -c '%a %U' "$root/etc/livebridge/livebridge.json5")
echo "/etc/livebridge/livebridge.json5: mode $mode"
[ "$mode" = "600 root" ] || fail "the config must be mode 600, owned by root (got $mode)"
zcat "$root/usr/share/doc/livebridge/changelog.Debian.gz" | head -1 | grep -q "^livebridge ($(in_root livebridge version | awk '{print $2}')) " \
    || fail "/usr/share/doc/livebridge/changelog.Debian.gz has no entry for the installed version"
echo "/usr/share/doc/livebridge/changelog.Debian.gz: $(zcat "$root/usr/share/doc/livebridge/changelog.Debian.gz" | head -1)"
in_root sh -c 'cat /var/lib/dpkg/info/livebridge.conffiles'
grep -q '^/etc/livebridge/livebridge.json5$' "$root/var/lib/dpkg/info/livebridge.conffiles" \
    || fail "the config is not a conffile"
grep -E '^(ExecStart|DynamicUser|StateDirectory|LoadCredential)=' "$root/lib/systemd/system/livebridge.service"
if ls "$root"/etc/systemd/system/*.wants/livebridge.service >/dev/null 2>&1; then
    fail "installing enabled the service before it is configured"
fi
echo "the service is installed, not enabled"

step "livebridge version"
in_root livebridge version

step "livebridge check --config /etc/livebridge/livebridge.json5 (the placeholder key: exit 78 expected)"
set +e
check_output=$(in_root livebridge check --config /etc/livebridge/livebridge.json5 2>&1)
check_status=$?
set -e
echo "$check_output"
echo "exit status $check_status"
[ "$check_status" -eq 78 ] || fail "check on the shipped config exited $check_status, expected 78 (a configuration error)"
grep -q 'PUSHWARD_API_KEY' <<<"$check_output" || fail "check did not name PUSHWARD_API_KEY"

step "livebridge demo --once --speed 300 --port 0"
demo_output=$(in_root timeout 120 livebridge demo --once --speed 300 --port 0 2>&1) || {
    echo "$demo_output" | tail -n 20 >&2
    fail "demo --once failed"
}
echo "$demo_output" | head -n 3
echo "…"
echo "$demo_output" | tail -n 2
grep -q 'demo stopped after 1 round(s)' <<<"$demo_output" || fail "demo --once did not finish its round"

step "livebridge run as an unprivileged user (as the Containerfile runs it), GET /health"
port=$((20000 + RANDOM % 20000))
in_root useradd --system --uid 999 --user-group --home-dir /var/lib/livebridge --shell /usr/sbin/nologin livebridge
install -d -m 0700 -o 999 -g 999 "$root/var/lib/livebridge"
cat >"$root/tmp/run.json5" <<CONFIG
{ dataDir: "/var/lib/livebridge", server: { listen: "127.0.0.1:$port" }, sinks: [{ name: "console", type: "console" }] }
CONFIG
chown 999:999 "$root/tmp/run.json5"
chmod 0600 "$root/tmp/run.json5"
# chroot, env and setpriv each exec the next, so $! is livebridge itself.
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
    setpriv --reuid=999 --regid=999 --clear-groups livebridge run --config /tmp/run.json5 >"$work/run.log" 2>&1 &
runner=$!
health=""
for _ in $(seq 1 50); do
    health=$(in_root bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET /health HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3" 2>/dev/null) && break
    sleep 0.2
done
kill -TERM "$runner" 2>/dev/null || true
wait "$runner" && run_status=0 || run_status=$?
echo "$health" | head -n 1
echo "$health" | tail -n 1
sed -n '1,3p' "$work/run.log"
grep -q '^HTTP/1.1 200' <<<"$health" || fail "GET /health did not answer 200 (log: $work/run.log)"
[ "$run_status" -eq 0 ] || fail "livebridge run exited $run_status on SIGTERM (log: $work/run.log)"
echo "SIGTERM: exit 0; state written by uid 999: $(ls "$root/var/lib/livebridge" | tr '\n' ' ')"

step "apt-get purge livebridge"
in_root apt-get purge -y -q livebridge >/dev/null 2>&1 || fail "apt-get purge livebridge failed"
[ ! -e "$root/usr/bin/livebridge" ] || fail "purge left /usr/bin/livebridge"
[ ! -e "$root/etc/livebridge/livebridge.json5" ] || fail "purge left the config"
[ ! -e "$root/lib/systemd/system/livebridge.service" ] || fail "purge left the unit"
echo "removed: /usr/bin/livebridge, /etc/livebridge, the unit"

umount "$root/proc"
mounted=""
step "package test passed"
