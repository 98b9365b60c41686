# Shared by bin/ofinet-compare and bin/lib/compare-allreduce.sh, sourced after common.sh: they only
# launch programs, and write every figure as a line of a figures file ($figures, its header
# program,provider,measure,size,round,value,unit; unit us, ns, MB/s or GB/s), from which
# io.ofinet.tools.compare.CompareReport prints the tables. Needs $work (a directory removed at exit).

# This tree's ofinet-perf and CompareReport, built if needed (a failed build ends the run: outside
# $(...), where set -e does not reach), and the figures file.
compare_start() {
    ofinet_build_if_needed tools
    this_cp=$(ofinet_classpath tools)
    figures="$work/figures.csv"
    echo "program,provider,measure,size,round,value,unit" > "$figures"
    failed_launches=0
}

# perf_launch PROGRAM WHAT CSV COMMAND...: one ofinet-perf launch writing CSV, bounded in time. A
# launch that fails, or finds wrong data, gives no figures: its CSV is dropped, the failure said on
# stderr and counted ($failed_launches), and the run ends with status 1 after its report.
perf_launch() {
    local program=$1 what=$2 csv=$3 status=0
    shift 3
    timeout 900 "$@" --csv "$csv" > "$work/launch.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        echo "ofinet-compare: $program's ofinet-perf $what failed (status $status) in round $round:" >&2
        grep -v '^WARNING' "$work/launch.log" | tail -n 5 >&2 || true
        rm -f "$csv"
        failed_launches=$((failed_launches + 1))
    fi
}

# compare_end: status 1 when a launch failed (after the report was printed).
compare_end() {
    if [ "${failed_launches:-0}" -gt 0 ]; then
        echo "ofinet-compare: $failed_launches ofinet-perf launch(es) failed; their figures are left out" >&2
        exit 1
    fi
}

compare_report() {
    java -cp "$this_cp" io.ofinet.tools.compare.CompareReport "$@"
}

# figure PROGRAM PROVIDER MEASURE SIZE VALUE UNIT: one figure of round $round; a launch that printed
# no number is said on stderr, and its cells show "-".
figure() {
    if [[ $5 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
        echo "$1,$2,$3,$4,$round,$5,$6" >> "$figures"
    else
        echo "ofinet-compare: $1 gave no $3 at $4 B on $2 in round $round${5:+ (it printed: $5)}" >&2
    fi
}

# The host's placement of the machine's two CPUs around each launch (bin/lib/cpu_distance.c: the
# one-way time of a cache line between them, in ns): placement_build once, placement_start before a
# launch, placed PROGRAM PROVIDER MEASURE SIZE... after it, which writes the larger of the two
# readings as a figure (measure MEASURE-placement) for each size the launch measured. Nothing is
# written where the probe cannot run (no second CPU, no compiler).
placement_build() {
    gcc -O2 -o "$work/cpu_distance" "$OFINET_ROOT/bin/lib/cpu_distance.c" -lpthread 2> /dev/null || true
}

placement_start() {
    placed_before=$("$work/cpu_distance" 2> /dev/null || true)
}

placed() {
    local program=$1 prov=$2 measure=$3 after value s
    shift 3
    after=$("$work/cpu_distance" 2> /dev/null || true)
    value=$(awk -v a="${placed_before:-}" -v b="$after" 'BEGIN { if (a == "" || b == "") exit; print (a + 0 > b + 0 ? a : b) }')
    [ -n "$value" ] || return 0
    for s in "$@"; do
        echo "$program,$prov,$measure-placement,$s,$round,$value,ns" >> "$figures"
    done
}

# perf_figures PROGRAM PROVIDER CSV...: the figures of round $round in ofinet-perf's CSV files, read
# by column name (a missing column ends the run, naming it); a CSV not written is skipped.
perf_figures() {
    local program=$1 prov=$2 csv found=()
    shift 2
    for csv in "$@"; do
        if [ -f "$csv" ]; then found+=("$csv"); fi
    done
    if [ ${#found[@]} -gt 0 ]; then
        compare_report figures --program "$program" --provider "$prov" --round "$round" "${found[@]}" >> "$figures"
    fi
}

# compare_baseline DIR: the checkout DIR's ofinet-perf, built there if needed ($baseline_cp,
# $baseline_main), and what it supports, asked: --reps 1 ($baseline_reps) where it names reps among
# its capabilities (ofinet-perf capabilities), the drained test ($baseline_drained) where it names it. On a checkout older than that command the command
# fails, and the checkout is taken to support none: it runs its default repetitions.
compare_baseline() {
    local said
    baseline_cp=$(bash -c 'set -e; source "$1/bin/lib/common.sh"; ofinet_build_if_needed "$2"; ofinet_classpath "$2"' \
        _ "$1" "$(ofinet_perf_module "$1")")
    baseline_main=$(ofinet_perf_main "$1")
    said=$(timeout 60 java -cp "$baseline_cp" "$baseline_main" capabilities 2>/dev/null < /dev/null || true)
    baseline_reps=()
    if grep -qx reps <<< "$said"; then baseline_reps=(--reps 1); fi
    baseline_drained=""
    if grep -qx drained <<< "$said"; then baseline_drained=yes; fi
}

# compare_plugin LIB ENV: the options --plugin LIB and --plugin-env ENV, either empty where not given.
# The driver opens the library NCCL_NET_PLUGIN names, so ofinet's launches must not inherit one: it
# is unset. With LIB, another NCCL net plugin runs through the same C driver beside ofinet's table
# (the C++ AWS OFI NCCL plugin, built as docs/PERFORMANCE.md says): $plugin, its path, which the
# driver opens as NCCL opens NCCL_NET_PLUGIN, and $plugin_env, the variables (K=V, separated by
# spaces) its launches get and ofinet's do not. ENV without LIB, an unreadable library, a library
# without NCCL's table, or a word that is no K=V ends the run, naming it.
compare_plugin() {
    local word
    unset NCCL_NET_PLUGIN
    plugin_env=()
    if [ -z "$1" ]; then
        plugin=""
        [ -z "$2" ] || { echo "ofinet-compare: --plugin-env without --plugin" >&2; exit 2; }
        return 0
    fi
    plugin=$(readlink -f "$1" 2> /dev/null || true)
    if [ -z "$plugin" ] || [ ! -r "$plugin" ]; then
        echo "ofinet-compare: --plugin $1: no such library" >&2
        exit 2
    fi
    # grep reads all of nm's output (no -q): under pipefail, nm cut short by SIGPIPE would fail the test.
    if ! nm -D --defined-only "$plugin" 2> /dev/null | grep ' ncclNetPlugin_v12$' > /dev/null; then
        echo "ofinet-compare: --plugin $1: exports no ncclNetPlugin_v12, which the C driver calls" >&2
        exit 2
    fi
    read -r -a plugin_env <<< "$2"
    for word in "${plugin_env[@]}"; do
        [[ $word =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] \
            || { echo "ofinet-compare: --plugin-env: $word is not NAME=VALUE" >&2; exit 2; }
    done
}

# plugin_launch COMMAND...: COMMAND with the plugin's library and variables (compare_plugin).
plugin_launch() {
    env NCCL_NET_PLUGIN="$plugin" "${plugin_env[@]}" "$@"
}
