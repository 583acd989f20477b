#!/usr/bin/env bash
# Builds livebridge_<version>_<arch>.deb from a release binary (`make deb`): the binary, the
# hardened systemd unit (examples/systemd/livebridge.service with the packaged path), the
# commented example config as a conffile (mode 0600), the other examples under
# /usr/share/doc/livebridge/examples, and the maintainer scripts in packaging/debian/.
# Depends: is what dpkg-shlibdeps derives from the libraries the binary links.
#
#   scripts/package/deb.sh [BINARY] [OUTPUT_DIR]     (defaults: .build/release/livebridge, .build/deb)
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-.build/release/livebridge}
out=${2:-.build/deb}
maintainer=${DEB_MAINTAINER:-LiveBridge <livebridge@localhost>}

fail() { echo "make deb: $*" >&2; exit 1; }
[ -x "$binary" ] || fail "no binary at $binary — run \`make release\` first"
for tool in dpkg-deb dpkg-shlibdeps objdump strip; do
    command -v "$tool" >/dev/null || fail "$tool is missing — run \`make deps\` (installs dpkg-dev)"
done

# The package must not need a Swift toolchain: every library the binary loads comes from Debian.
if toolchain=$(ldd "$binary" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|lib_Foundation|/swift/'); then
    fail "$binary links the Swift toolchain's libraries (build it with --static-swift-stdlib: \`make release\`):
$toolchain"
fi
if missing=$(ldd "$binary" | grep 'not found'); then fail "$binary links libraries that are not installed:
$missing"; fi

# Nor Foundation (with ICU): the daemon's modules use the standard library and FoundationEssentials.
if command -v nm >/dev/null && nm "$binary" 2>/dev/null | grep -E '\$s10Foundation|\$s33FoundationInternationalization' >/dev/null; then
    fail "$binary links Foundation (\`import Foundation\` in a module livebridge links?); it must use FoundationEssentials"
fi

version=$("$binary" version | awk '{print $2}')
[[ $version =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || fail "\`$binary version\` gave \"$version\", not a Debian version"
arch=$(dpkg --print-architecture)
deb="$out/livebridge_${version}_${arch}.deb"

stage="$out/stage"
rm -rf "$stage"
install -d -m 0755 "$stage/DEBIAN" "$stage/usr/bin" "$stage/lib/systemd/system" \
    "$stage/usr/share/doc/livebridge/examples"
install -d -m 0755 "$stage/etc/livebridge"
install -m 0755 "$binary" "$stage/usr/bin/livebridge"
strip --strip-unneeded "$stage/usr/bin/livebridge"
install -m 0600 examples/livebridge.json5 "$stage/etc/livebridge/livebridge.json5"
for example in examples/*.json5 examples/systemd/livebridge.env; do
    install -m 0644 "$example" "$stage/usr/share/doc/livebridge/examples/"
done

# Debian policy's changelog: one entry for this build (the date of the commit it was built from,
# so a rebuild of the same tree gives the same file).
changed=$(git log -1 --format=%cD 2>/dev/null || date -R)
printf 'livebridge (%s) unstable; urgency=medium\n\n  * Built from the LiveBridge source tree (README, docs/).\n\n -- %s  %s\n' \
    "$version" "$maintainer" "$changed" | gzip -9n >"$stage/usr/share/doc/livebridge/changelog.Debian.gz"
chmod 0644 "$stage/usr/share/doc/livebridge/changelog.Debian.gz"

# The unit as examples/systemd has it, for /usr/bin and without the `make install` steps.
{
    cat <<'HEADER'
# LiveBridge as a hardened systemd service, installed by the livebridge package.
#
#   edit /etc/livebridge/livebridge.json5; secrets go to /etc/livebridge/livebridge.env (mode 0600,
#   example in /usr/share/doc/livebridge/examples/livebridge.env)
#   livebridge check --config /etc/livebridge/livebridge.json5
#   systemctl enable --now livebridge
#   journalctl -u livebridge -f
#
# The service runs as a throw-away user (DynamicUser), which cannot read the root-only config:
# systemd hands it a private copy (LoadCredential). State goes to /var/lib/livebridge
# (StateDirectory, exported as $STATE_DIRECTORY: leave dataDir unset or set it to that path).
HEADER
    # The example's own header (its `make install` steps) ends at the first blank line.
    awk 'started || /^$/ { started = 1 } started' examples/systemd/livebridge.service
} | sed -e 's|/usr/local/bin/livebridge|/usr/bin/livebridge|g' >"$stage/lib/systemd/system/livebridge.service"
chmod 0644 "$stage/lib/systemd/system/livebridge.service"
grep -q '^ExecStart=/usr/bin/livebridge run ' "$stage/lib/systemd/system/livebridge.service" \
    || fail "the packaged unit has no ExecStart=/usr/bin/livebridge (examples/systemd/livebridge.service changed?)"

# systemd-analyze insists that ExecStart's binary exists: verify a copy that points at the staged one.
if command -v systemd-analyze >/dev/null; then
    verify=$(mktemp -d)
    sed "s|/usr/bin/livebridge|$PWD/$stage/usr/bin/livebridge|g" "$stage/lib/systemd/system/livebridge.service" \
        >"$verify/livebridge.service"
    systemd-analyze verify "$verify/livebridge.service" || fail "systemd-analyze verify rejects the packaged unit"
    rm -rf "$verify"
fi

# Depends: dpkg-shlibdeps reads the binary's NEEDED entries, finds each library's package
# (dpkg -S) and the lowest version that provides the symbols used (the packages' symbols files).
shlibs=$(mktemp -d)
trap 'rm -rf "$shlibs"' EXIT
mkdir -p "$shlibs/debian"
printf 'Source: livebridge\n\nPackage: livebridge\nArchitecture: any\n' >"$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$OLDPWD/$stage/usr/bin/livebridge" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies for $binary"

installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s|@DEPENDS@|$depends|" packaging/debian/control.in \
    >"$stage/DEBIAN/control"
echo /etc/livebridge/livebridge.json5 >"$stage/DEBIAN/conffiles"
for script in postinst prerm postrm; do install -m 0755 "packaging/debian/$script" "$stage/DEBIAN/$script"; done

rm -f "$out"/livebridge_*.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "Depends: $depends"
echo "built $deb ($(du -k "$deb" | cut -f1) KiB; installed $installed_size KiB)"
