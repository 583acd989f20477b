#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/harnesses.list into .build/fuzz/bin/<name>.
#
#   fuzz/build.sh [harness…]      (default: every harness in the list)
#
# Harnesses have no `main` (libFuzzer supplies it), so they cannot be SwiftPM targets. Instead:
#   1. SwiftPM builds the library each harness needs, instrumented for libFuzzer and AddressSanitizer
#      (`swift build -c release --target <module>` with the sanitizer flags below) into its own
#      scratch path, .build/fuzz/spm, so the normal build is untouched. SwiftPM knows the C system
#      modules, the shim target and the upcoming-feature flags, so nothing is repeated here.
#      Not `--sanitize fuzzer --sanitize address`: SwiftPM passes those as two `-sanitize=` options
#      and swiftc keeps only the last one, so Swift code would get no coverage instrumentation.
#   2. swiftc compiles the harness file plus fuzz/Support/*.swift against those modules and links
#      it with the object files of the module and everything it depends on
#      (`swiftc -sanitize=fuzzer,address -parse-as-library`); the C libraries come in through the
#      module maps' autolink entries.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SWIFTC=${SWIFTC:-swiftc}
SCRATCH=.build/fuzz/spm
PRODUCTS=$SCRATCH/release
BIN=.build/fuzz/bin
LIST=fuzz/harnesses.list

# name → "module max_len" for every harness in the list.
declare -A MODULE_OF
ALL=()
while read -r name module max_len _; do
    [[ -z "${name:-}" || "$name" == \#* ]] && continue
    MODULE_OF[$name]=$module
    ALL+=("$name")
done <"$LIST"

SELECTED=("$@")
[ ${#SELECTED[@]} -eq 0 ] && SELECTED=("${ALL[@]}")
for name in "${SELECTED[@]}"; do
    [ -n "${MODULE_OF[$name]:-}" ] || { echo "fuzz/build.sh: no harness \"$name\" in $LIST" >&2; exit 2; }
    [ -f "fuzz/Harnesses/$name.swift" ] || { echo "fuzz/build.sh: missing fuzz/Harnesses/$name.swift" >&2; exit 2; }
done

# 1. The instrumented libraries, one SwiftPM invocation per distinct module (incremental).
MODULES=$(for name in "${SELECTED[@]}"; do echo "${MODULE_OF[$name]}"; done | sort -u)
for module in $MODULES; do
    echo "fuzz/build.sh: building $module (release, fuzzer + address sanitizer instrumentation)"
    mkdir -p "$SCRATCH"
    if ! "$SWIFT" build -c release --scratch-path "$SCRATCH" --target "$module" \
        -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address >"$SCRATCH/build-$module.log" 2>&1
    then
        cat "$SCRATCH/build-$module.log" >&2
        echo "fuzz/build.sh: swift build of $module failed" >&2
        exit 1
    fi
done

# The dependency closure of a module (itself first), from the package description; system-library
# targets have no objects and are left out.
"$SWIFT" package describe --type json >"$SCRATCH/package.json"
closure() {
    python3 - "$SCRATCH/package.json" "$1" <<'PY'
import json, sys
targets = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"]}
order, stack = [], [sys.argv[2]]
while stack:
    name = stack.pop()
    if name in order or name not in targets:
        continue
    order.append(name)
    stack.extend(targets[name].get("target_dependencies", []))
print(" ".join(n for n in order if targets[n].get("type") != "system-target"))
PY
}

# 2. One executable per harness.
mkdir -p "$BIN"
SHIMS_MAP=$PRODUCTS/CLiveBridgeShims.build/module.modulemap
for name in "${SELECTED[@]}"; do
    module=${MODULE_OF[$name]}
    objects=()
    for dependency in $(closure "$module"); do
        objects+=("$PRODUCTS/$dependency.build/"*.o)
    done
    c_modules=(-I Sources/CCurl -I Sources/CMosquitto -I Sources/COpenSSL)
    [ -f "$SHIMS_MAP" ] && c_modules+=(-Xcc "-fmodule-map-file=$SHIMS_MAP" -I Sources/CLiveBridgeShims/include)
    echo "fuzz/build.sh: linking $BIN/$name"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -use-ld=lld \
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
        -enable-upcoming-feature InternalImportsByDefault \
        -module-name "Fuzz_${name//-/_}" -I "$PRODUCTS/Modules" "${c_modules[@]}" \
        "fuzz/Harnesses/$name.swift" fuzz/Support/*.swift "${objects[@]}" \
        -module-cache-path "$SCRATCH/ModuleCache" -o "$BIN/$name"
done
