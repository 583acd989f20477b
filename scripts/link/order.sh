#!/usr/bin/env bash
# Regenerates the code layout of the release link of `livebridge` (Package.swift,
# daemonReleaseLinking; docs/performance.md, "Memory and CPU"):
#   scripts/link/livebridge.order    lld's --symbol-ordering-file: the executed functions
#   scripts/link/livebridge-hot.lds  a linker script placing, before .text, the executed
#                                    functions that no symbol of their own names
#
# Both come from the functions that `livebridge run` executes in the resource bench's setup
# (3 sources, 2 sinks, the activities API; idle, then busy): valgrind's callgrind records them
# while `livebridge-bench --only resources` drives the release binary. The linker places those
# functions together at the start of the code, so what the daemon runs lies in about three
# contiguous megabytes instead of being spread over all eleven, and the kernel's fault-around
# maps that code rather than its cold neighbours. The profiled binary is linked with the current
# layout, which changes where the functions lie but not which of them run: the files generated do
# not depend on the layout they replace (nor on the state of .build).
#
# lld orders sections by the symbols they define. Two kinds of executed functions need the
# linker script instead:
# - functions with no symbol at all: Swift's closure-context destructors and other private
#   helpers, which -function-sections puts in sections named `.text..L…`;
# - local functions whose name several objects define (value witnesses, closure helpers,
#   `_swift_stdlib_gettid` from the runtime's headers) when one of those definitions sits in a
#   section holding a whole file's or library's code (the `.text` of an object built without
#   function sections) that the run does not otherwise execute: ordering the name would pull
#   that whole section forward, so only their own sections (`.text.<name>`) are placed.
#
#   scripts/link/order.sh [RUNS]     (default 2 runs, merged; about a minute each)
#
# Needs the release build's inputs (it runs `swift build -c release --static-swift-stdlib`),
# valgrind and binutils (installed when missing) and what the bench needs (`make deps`).
# Names that the linker no longer finds (renamed or removed code) match nothing and are skipped
# without a warning: a stale layout costs memory, never a failed or different build.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-2}
order=scripts/link/livebridge.order
script=scripts/link/livebridge-hot.lds

# shellcheck source=../deps/common.sh
source scripts/deps/common.sh
apt_install valgrind binutils

swift build -c release --static-swift-stdlib
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
toolchain=$(dirname "$(dirname "$(command -v swiftc)")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# valgrind 3.19 (Debian 12) cannot read the DWARF 5 that swiftc writes; the symbol table is all
# callgrind needs to name functions.
objcopy --strip-debug "$bin/livebridge" "$work/livebridge"
cat >"$work/profiled" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no --dump-instr=no \\
    --callgrind-out-file="$work/callgrind.%p" --log-file="$work/valgrind.%p" "$work/livebridge" "\$@"
EOF
chmod +x "$work/profiled"
for run in $(seq "$runs"); do
    echo "order: profiling run $run of $runs"
    "$bin/livebridge-bench" --only resources --binary "$work/profiled" --idle 10 --busy 30 >"$work/bench.$run"
    grep -q 'Peak RSS' "$work/bench.$run" || { cat "$work/bench.$run" >&2; exit 1; }
done

# The binary's functions outside its `.text` section: those the current linker script placed in
# `.text.hot`. valgrind 3.19 counts only an object's `.text` as its code, so callgrind names these
# functions but lists them under `ob=???`; without them, a layout generated from a binary linked
# with the previous one would leave out what that one placed.
objdump -t "$work/livebridge" |
    awk -F'\t' '
        NF == 2 {
            n = split($1, left, " ")
            if (left[n - 1] != "F" && left[n - 2] != "F") next
            m = split($2, right, " ")
            if (left[n] ~ /^\.text./) print right[m]
        }' >"$work/outside"

# The executed functions of the binary (callgrind's `fn=` lines under its `ob=`, or under `ob=???`
# for the functions above), without callgrind's recursion suffixes ('2) and its names for code
# outside any symbol.
awk -v object="$work/livebridge" '
    FILENAME == ARGV[1] { outside[$1] = 1; next }
    /^ob=/ { current = substr($0, 4) }
    /^fn=/ && (current == object || current == "???") {
        name = substr($0, 4); sub(/\047[0-9]+$/, "", name)
        if (current == "???" && !(name in outside)) next
        if (name !~ /^0x/ && name !~ /[ ()]/) print name
    }' "$work/outside" "$work"/callgrind.* | LC_ALL=C sort -u >"$work/executed"

# The names of the binary's symbols, each once.
nm --defined-only "$bin/livebridge" | awk '{ print $3 }' | LC_ALL=C sort -u >"$work/symbols"

# Every function symbol of the link's inputs: object number, section, name, and whether it is
# global. The inputs are LiveBridge's objects and the toolchain's static libraries; a library's
# object counts as linked when one of its global symbols is in the binary.
mapfile -t objects <"$bin/livebridge.product/Objects.LinkFileList"
objdump -t "${objects[@]}" "$toolchain"/lib/swift_static/linux/*.a 2>/dev/null |
    awk -F'\t' '
        /file format/ { object++ }
        NF == 2 {
            n = split($1, left, " ")
            if (left[n - 1] != "F" && left[n - 2] != "F") next
            m = split($2, right, " ")
            print object, left[n], right[m], ($1 ~ /^[0-9a-f]+ [gu]/) ? 1 : 0
        }' >"$work/definitions"

# Split the executed names: those lld may order by symbol, and those whose own sections the
# linker script places (a definition in an otherwise cold whole-file `.text`). An object's
# `.text` is executed when it defines an executed name that no other linked object defines.
awk -v placed="$work/placed" '
    FILENAME == ARGV[1] { symbol[$1] = 1; next }
    FILENAME == ARGV[2] { executed[$1] = 1; next }
    {
        rows++; object[rows] = $1; section[rows] = $2; name[rows] = $3
        if ($4 && ($3 in symbol)) linked[$1] = 1
    }
    END {
        for (r = 1; r <= rows; r++) if (object[r] in linked) definitions[name[r]]++
        for (r = 1; r <= rows; r++)
            if (section[r] == ".text" && (object[r] in linked) && (name[r] in executed) && definitions[name[r]] == 1)
                hot[object[r]] = 1
        for (r = 1; r <= rows; r++)
            if (section[r] == ".text" && (object[r] in linked) && !(object[r] in hot) && definitions[name[r]] > 1)
                pulls[name[r]] = 1
        for (n in executed) if (n in pulls) print n >placed; else print n
    }' "$work/symbols" "$work/executed" "$work/definitions" | LC_ALL=C sort >"$work/ordered"
touch "$work/placed"
LC_ALL=C sort -o "$work/placed" "$work/placed"

{
    echo "# The functions \`livebridge run\` executes in the resource bench, for lld's"
    echo "# --symbol-ordering-file (Package.swift). Generated by scripts/link/order.sh; do not edit."
    cat "$work/ordered"
} >"$order"
{
    echo "/* The executed functions that scripts/link/livebridge.order cannot name, placed before .text:"
    echo "   sections without a symbol, and the own sections of local functions whose name is also"
    echo "   defined in an otherwise cold whole-file .text. Generated by scripts/link/order.sh; do not"
    echo "   edit. */"
    echo "SECTIONS {"
    echo "  .text.hot : {"
    echo "    *(.text..L*)"
    sed 's/^.*$/    *(.text.&)/' "$work/placed"
    echo "  }"
    echo "}"
    echo "INSERT BEFORE .text;"
} >"$script"
# The next build links again with the new layout (SwiftPM does not see the files change).
rm -f "$bin/livebridge"
echo "order: $(wc -l <"$work/executed") functions executed; $(wc -l <"$work/ordered") in $order," \
    "$(wc -l <"$work/placed") in $script"
