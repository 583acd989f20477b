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

# The object files of a module and everything it depends on, from the package description and
# SwiftPM's output file maps: exactly what the last build compiled, never a stale object of a file
# that has since been deleted. System-library targets have none.
objects_of() {
    python3 - "$SCRATCH/package.json" "$PRODUCTS" "$1" <<'PY'
import json, os, sys
targets = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"]}
products, order, stack = sys.argv[2], [], [sys.argv[3]]
while stack:
    name = stack.pop()
    if name in order or name not in targets:
        continue
    order.append(name)
    stack.extend(targets[name].get("target_dependencies", []))
for name in order:
    target = targets[name]
    if target.get("type") == "system-target":
        continue
    build = os.path.join(products, target["c99name"] + ".build")
    if target.get("module_type") == "SwiftTarget":
        entries = json.load(open(os.path.join(build, "output-file-map.json")))
        objects = [entry["object"] for source, entry in entries.items() if source and "object" in entry]
    else:
        objects = [os.path.join(build, source + ".o") for source in target["sources"]]
    for path in objects:
        if not os.path.exists(path):
            sys.exit("fuzz/build.sh: %s was not built (expected %s)" % (name, path))
        print(path)
PY
}

"$SWIFT" package describe --type json >"$SCRATCH/package.json"

# 2. One executable per harness.
mkdir -p "$BIN"
SHIMS_MAP=$PRODUCTS/CLiveBridgeShims.build/module.modulemap
for name in "${SELECTED[@]}"; do
    module=${MODULE_OF[$name]}
    list=$(objects_of "$module")
    mapfile -t objects <<<"$list"
    [ ${#objects[@]} -gt 0 ] || { echo "fuzz/build.sh: no objects for $module" >&2; exit 1; }
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
