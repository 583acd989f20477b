#!/usr/bin/env bash
# Packaging (`make deb`, `make package-test`): dpkg-dev for dpkg-shlibdeps (the package's
# Depends: from the libraries the binary links), debootstrap for the clean Debian 12 root the
# package test installs the .deb into.
set -euo pipefail
source "$(dirname "$0")/common.sh"
apt_install dpkg-dev debootstrap binutils
