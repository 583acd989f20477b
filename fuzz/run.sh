#!/usr/bin/env bash
# Runs the libFuzzer harnesses and prints a table: harness, iterations, seconds, crashes.
#
#   fuzz/run.sh [--runs N | --seconds S] [--restart-every S] [--seed N] [--fresh] [--no-build] [harness…]
#
#   --runs N            stop each harness after N inputs (default: --runs 20000)
#   --seconds S         stop each harness after S seconds instead
#   --restart-every S   with --seconds, restart the harness process every S seconds (default 30),
#                       keeping its corpus; process-wide registries that grow with every input
#                       (the secret redactor in the config path) would otherwise slow it down
#   --seed N            libFuzzer's random seed (default: a fresh one per run)
#   --fresh             start from the committed seeds only and keep nothing afterwards (the smoke
#                       pass: same work on every machine, however long earlier runs grew the corpus)
#   --no-build          use the binaries already in .build/fuzz/bin
#   harness…            names from fuzz/harnesses.list (default: all of them)
#
# Each harness starts from its committed seeds, fuzz/corpus/<name>/, and the extra seed
# directories its list line names (all read-only), plus what earlier runs found,
# .build/fuzz/corpus/<name>/ (where libFuzzer writes new inputs), with fuzz/dict/<name>.dict when
# there is one and the max_len of the list. A crash, leak, timeout or out-of-memory input is saved
# under .build/fuzz/artifacts/<name>/ and the output is kept in .build/fuzz/logs/<name>.log.
# Exits 1 when any harness crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=20000
SECONDS_EACH=""
RESTART_EVERY=30
SEED=""
FRESH=0
BUILD=1
NAMES=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; SECONDS_EACH=""; shift 2 ;;
        --seconds) SECONDS_EACH=$2; RUNS=""; shift 2 ;;
        --restart-every) RESTART_EVERY=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        --fresh) FRESH=1; shift ;;
        --no-build) BUILD=0; shift ;;
        -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz/run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) NAMES+=("$1"); shift ;;
    esac
done

LIST=fuzz/harnesses.list
declare -A MAX_LEN EXTRA_SEEDS
ALL=()
while read -r name module max_len seeds _; do
    [[ -z "${name:-}" || "$name" == \#* ]] && continue
    MAX_LEN[$name]=$max_len
    EXTRA_SEEDS[$name]=${seeds:-}
    ALL+=("$name")
done <"$LIST"
[ ${#NAMES[@]} -eq 0 ] && NAMES=("${ALL[@]}")
for name in "${NAMES[@]}"; do
    [ -n "${MAX_LEN[$name]:-}" ] || { echo "fuzz/run.sh: no harness \"$name\" in $LIST" >&2; exit 2; }
done

[ "$BUILD" -eq 1 ] && fuzz/build.sh "${NAMES[@]}"

OUT=.build/fuzz
mkdir -p "$OUT/logs"
# Swift's own crash handler would race AddressSanitizer's report; libFuzzer prints the stack.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Prints what went wrong in a crashed run's log: the report line and the first Swift frame.
explain() {
    local log=$1
    grep -a -m1 -E "FUZZ INVARIANT BROKEN|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error" "$log" || true
    grep -a -m1 -o "Swift runtime failure: [^/]*" "$log" || true
    awk '/ERROR: |FUZZ INVARIANT BROKEN/ { found = 1 }
        found && / in \$s/ && !/fuzzFailure|fuzzCheck|Swift runtime failure/ { print; exit }' "$log" |
        "${SWIFT:-swift}" demangle --simplified || true
}

ROWS=()
FAILED=0
for name in "${NAMES[@]}"; do
    work=$OUT/corpus/$name
    artifacts=$OUT/artifacts/$name
    log=$OUT/logs/$name.log
    mkdir -p "$work" "$artifacts"
    [ "$FRESH" -eq 1 ] && work=$(mktemp -d "$OUT/fresh-$name.XXXXXX")
    : >"$log"
    args=(-max_len="${MAX_LEN[$name]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$artifacts/")
    [ -f "fuzz/dict/$name.dict" ] && args+=(-dict="fuzz/dict/$name.dict")
    [ -n "$SEED" ] && args+=(-seed="$SEED")
    seeds=()
    [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
    for directory in ${EXTRA_SEEDS[$name]//,/ }; do
        [ -d "$directory" ] && seeds+=("$directory")
    done

    # One slice for --runs; slices of RESTART_EVERY seconds for --seconds.
    slices=()
    if [ -n "$SECONDS_EACH" ]; then
        left=$SECONDS_EACH
        while [ "$left" -gt 0 ]; do
            slice=$((left < RESTART_EVERY ? left : RESTART_EVERY))
            slices+=(-max_total_time="$slice")
            left=$((left - slice))
        done
    else
        slices+=(-runs="$RUNS")
    fi

    marker=$(mktemp)
    start=$(now)
    status=0
    iterations=0
    slice_log=$(mktemp)
    for limit in "${slices[@]}"; do
        "$OUT/bin/$name" "${args[@]}" "$limit" "$work" "${seeds[@]}" >"$slice_log" 2>&1 || status=$?
        executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$slice_log" | tail -1)
        iterations=$((iterations + ${executed:-0}))
        cat "$slice_log" >>"$log"
        [ "$status" -eq 0 ] || break
    done
    rm -f "$slice_log"
    [ "$FRESH" -eq 1 ] && rm -rf "$work"
    end=$(now)
    crashes=$(find "$artifacts" -type f -newer "$marker" | wc -l)
    rm -f "$marker"
    if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi
    if [ "$crashes" -gt 0 ]; then
        FAILED=1
        {
            echo "fuzz/run.sh: $name crashed (exit $status); input saved under $artifacts/, output in $log"
            explain "$log"
        } >&2
    fi
    ROWS+=("$(printf '%-20s %12s %9s %8s' "$name" "$iterations" "$(elapsed "$start" "$end")" "$crashes")")
done

printf '%-20s %12s %9s %8s\n' harness iterations seconds crashes
for row in "${ROWS[@]}"; do echo "$row"; done
exit "$FAILED"
