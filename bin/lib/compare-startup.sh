#!/usr/bin/env bash
# bin/ofinet-compare startup: what a rank pays for ofinet through NCCL's table (plugin/nccl's
# nccl_driver startup): dlopen, the first init, in which ofinet creates its JVM, split into its
# stages, the first listen, connect, accept, regMr pair and calls, the median of the first round
# trips of 8 B and percentiles of the next ones, VmRSS and threads along the way, and resident
# memory by kind of mapping at the end; two ranks over tcp;ofi_rxm on loopback, one launch a round.
# The table shows each figure's median over the launches for each rank. With a baseline checkout,
# run in every round (after this tree in odd rounds, before it in even ones), its medians stand
# beside, and the paired ratio: each launch's figure divided by the baseline's of the same round and
# rank, the median over both ranks. A baseline whose driver has no startup mode is left out, said on
# stderr. With --plugin, another NCCL net plugin runs under the same driver in every round (after
# the baseline in odd rounds, first in even ones), its medians beside, and the paired ratio of this
# tree's figure to its own. Needs a JDK 22 or newer. The script launches the driver; the table comes from
# io.ofinet.tools.compare.CompareReport (bin/lib/compare.sh), as bin/ofinet-compare's do.
#   --rounds N       N launches of each tree instead of three
#   --baseline DIR   also another ofinet checkout (e.g. the parent commit, from git worktree add)
#   --cold N         the driver's cold round trips (200 by default)
#   --tail N         the round trips after them, for the percentiles (100,000 by default)
#   --bootstrap MS   each rank waits MS between init and its first listen, as NCCL's own bootstrap
#                    does (0 by default); a baseline's driver without the option is left out
#   --plugin LIB     also another plugin's library (the C++ plugin: docs/PERFORMANCE.md), opened
#                    by path as NCCL opens NCCL_NET_PLUGIN; it gets no init split (no JVM)
#   --plugin-env 'NAME=VALUE ...'
#                    variables for the plugin's launches only (its provider, its libraries' path)
set -euo pipefail
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/compare.sh"
baseline=""
rounds=3
driver_args=()
plugin=""
plugin_words=""
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --baseline) [ -n "${2:-}" ] && baseline=$(cd "$2" && pwd) \
            || { echo "compare-startup: --baseline needs a directory" >&2; exit 2; }
            shift 2 ;;
        --rounds) rounds=${2:-}; [[ $rounds =~ ^[1-9][0-9]*$ ]] \
            || { echo "compare-startup: --rounds takes a positive number: ${2:-(none)}" >&2; exit 2; }
            shift 2 ;;
        --cold|--tail|--bootstrap) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] \
            || { echo "compare-startup: $1 takes a positive number: ${2:-(none)}" >&2; exit 2; }
            driver_args+=("$1" "$2")
            shift 2 ;;
        --plugin|--plugin-env) [ -n "${2:-}" ] && [[ $2 != --* ]] \
            || { echo "compare-startup: $1 needs a value" >&2; exit 2; }
            if [ "$1" = --plugin ]; then plugin=$2; else plugin_words=$2; fi
            shift 2 ;;
        *) echo "compare-startup: unknown argument $1 (--rounds N, --baseline DIR, --cold N, --tail N," \
                "--bootstrap MS, --plugin LIB, --plugin-env VARIABLES)" >&2; exit 2 ;;
    esac
done
# libfabric, and gcc, make and binutils for NCCL's library and its driver.
ofinet_require_packages libfabric1 gcc make binutils
compare_plugin "$plugin" "$plugin_words"
if ! java -XshowSettings:properties -version 2>&1 | grep -q 'java.specification.version = \(2[2-9]\|[3-9][0-9]\)'; then
    echo "compare-startup: NCCL's library is built on a JDK 22 or newer only: set OFINET_JAVA_HOME to one" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare_start
driver_of() { echo "$1/plugin/nccl/target/c-tests/nccl_driver"; }
library_of() { echo "$1/plugin/nccl/target/nccl/lib"; }
build_nccl() { # checkout: its library and driver, built there if needed (in a shell of its own: its common.sh)
    bash -c 'set -e; source "$1/bin/lib/common.sh"; ofinet_build_if_needed plugin/nccl \
        "target/nccl/lib/ofinet/ofinet-nccl-*.jar" "$2/libnccl-net-ofinet.so" "$3"' _ "$1" "$(library_of "$1")" \
        "$(driver_of "$1")"
}
build_nccl "$OFINET_ROOT"
if [ -n "$baseline" ]; then
    # A checkout without the mode: its driver's usage (no mode given) does not name it.
    usage=""
    if [ -d "$baseline/plugin/nccl/src/test/c" ] && build_nccl "$baseline"; then
        usage=$("$(driver_of "$baseline")" 2>&1 < /dev/null || true)
    fi
    if ! grep -q ' startup ' <<< "$usage"; then
        echo "compare-startup: the baseline $baseline has no nccl_driver startup: left out" >&2
        baseline=""
    elif [[ " ${driver_args[*]} " == *" --bootstrap "* ]] && ! grep -q -- '--bootstrap' <<< "$usage"; then
        echo "compare-startup: the baseline $baseline's nccl_driver startup has no --bootstrap: left out" >&2
        baseline=""
    fi
fi
layout="$work/layout.json"
echo '{"devices": [{"name": "lo", "dataRails": [{"provider": "tcp;ofi_rxm", "domain": "lo", "srcAddr": "127.0.0.1"}]}]}' \
    > "$layout"
startup="$work/startup.csv"
echo "program,round,rank,figure,value,unit" > "$startup"

startup_run() { # program checkout [launcher...]: one launch of its driver; a launch that fails gives no figures, and is counted
    local program=$1 root=$2 out="$work/startup-$1-$round.out" status=0
    shift 2
    LD_LIBRARY_PATH="$(library_of "$root")" OFINET_LAYOUT="$layout" "$@" timeout 900 "$(driver_of "$root")" startup \
        "${driver_args[@]}" > "$out" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        echo "compare-startup: $program's nccl_driver startup failed (status $status) in round $round:" >&2
        grep -v '^  \[nccl log' "$out" | tail -n 5 >&2 || true
        failed_launches=$((failed_launches + 1))
        return 0
    fi
    # Figures the report cannot take (a negative one) count as a failed launch: the others stand.
    if ! compare_report startup-figures --program "$program" --round "$round" "$out" >> "$startup"; then
        failed_launches=$((failed_launches + 1))
    fi
}

for round in $(seq "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then
        startup_run ofinet "$OFINET_ROOT"
        [ -z "$baseline" ] || startup_run baseline "$baseline"
        [ -z "$plugin" ] || startup_run plugin "$OFINET_ROOT" plugin_launch
    else
        [ -z "$plugin" ] || startup_run plugin "$OFINET_ROOT" plugin_launch
        [ -z "$baseline" ] || startup_run baseline "$baseline"
        startup_run ofinet "$OFINET_ROOT"
    fi
done
compare_report startup --figures "$startup" --rounds "$rounds" ${baseline:+--baseline} ${plugin:+--plugin "$plugin"}
if [ "$failed_launches" -gt 0 ]; then
    echo "compare-startup: $failed_launches launch(es) of nccl_driver startup failed; their figures are left out" >&2
    exit 1
fi
