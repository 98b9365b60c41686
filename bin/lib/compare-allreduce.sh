#!/usr/bin/env bash
# bin/ofinet-compare allreduce: ofinet's allreduce (ofinet-perf allreduce, over the NetPlugin
# API on tcp;ofi_rxm) against Open MPI's MPI_Allreduce over btl tcp,self (bin/lib/mpi_allreduce.c,
# built with mpicc), 2 ranks on loopback, float32 sums. Three rounds, Open MPI first in odd ones and
# ofinet first in even ones, so that neither side always follows the other into a phase of the
# machine; the table shows the median busbw of each (nccl-tests' busbw: size / time * 2 (n - 1) / n),
# their ratio, ofinet ÷ MPI (above 1: ofinet faster), and the paired ratio: the median of each round's own
# ratio, which the machine's phases move less (docs/PERFORMANCE.md). A second table does the same for
# the exchange (MPI_Sendrecv against ofinet-perf exchange) at the sizes of the allreduce's steps: with
# 2 ranks an allreduce of up to 1 MiB is one exchange of the whole buffer and a sum, a larger one two
# ring steps of half its size with a sum between them, so the two tables tell how much of a
# difference lies in the transfers. The script launches the programs; the tables come from
# io.ofinet.tools.compare.CompareReport (bin/lib/compare.sh), as bin/ofinet-compare's do.
#   --rounds N       N rounds instead of three
#   --baseline DIR   also another ofinet checkout, run in every round right after this one (one
#                    repetition per launch where its ofinet-perf names reps among its capabilities)
set -euo pipefail
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/compare.sh"
baseline=""
rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --baseline) [ -n "${2:-}" ] && baseline=$(cd "$2" && pwd) \
            || { echo "compare-allreduce: --baseline needs a directory" >&2; exit 2; }
            shift 2 ;;
        --rounds) rounds=${2:-}; [[ $rounds =~ ^[1-9][0-9]*$ ]] \
            || { echo "compare-allreduce: --rounds takes a positive number: ${2:-(none)}" >&2; exit 2; }
            shift 2 ;;
        *) echo "compare-allreduce: unknown argument $1 (--rounds N, --baseline DIR)" >&2; exit 2 ;;
    esac
done
# libfabric, and Open MPI's mpirun and mpicc for the MPI side.
ofinet_require_packages libfabric1 openmpi-bin libopenmpi-dev
sizes=(1048576 2097152 4194304 8388608)
steps=(1048576 2097152 4194304)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare_start
[ -z "$baseline" ] || compare_baseline "$baseline"
list() { local IFS=,; echo "$*"; }

mpicc -O2 -o "$work/mpi_allreduce" "$OFINET_ROOT/bin/lib/mpi_allreduce.c"
as_root=()
[ "$(id -u)" -ne 0 ] || as_root=(--allow-run-as-root)
mpi_run() { # measure [-x] sizes...: one mpirun; it prints size, us and busbw (allreduce) or algbw (-x)
    local measure=$1 size value
    shift
    rm -f "$work/mpi.txt"
    timeout 300 mpirun "${as_root[@]}" -np 2 --oversubscribe --bind-to none --mca btl tcp,self \
        --mca btl_tcp_if_include lo "$work/mpi_allreduce" "$@" > "$work/mpi.txt" \
        || echo "compare-allreduce: mpirun failed ($measure, round $round)" >&2
    while read -r size _ value; do figure mpi tcp "$measure" "$size" "$value" GB/s; done < "$work/mpi.txt"
}
mpi_round() { # MPI_Allreduce, then MPI_Sendrecv
    mpi_run allreduce "${sizes[@]}"
    mpi_run exchange -x "${steps[@]}"
}

perf_run() { # program classpath main-class test sizes [ofinet-perf options]: one launch into $work/TEST.csv
    local program=$1 cp=$2 main=$3 test=$4 these=$5
    shift 5
    rm -f "$work/$test.csv"
    perf_launch "$program" "$test" "$work/$test.csv" java $(ofinet_native_access) $(ofinet_vector_module) \
        -cp "$cp" "$main" "$test" -n 2 --provider "tcp;ofi_rxm" --sizes="$these" "$@"
    perf_figures "$program" tcp "$work/$test.csv"
}

ofinet_round() { # this tree's allreduce, the baseline's, then this tree's exchange
    perf_run ofinet "$this_cp" io.ofinet.tools.perf.OfinetPerf allreduce "$(list "${sizes[@]}")" --reps 1
    [ -z "$baseline" ] || perf_run baseline "$baseline_cp" "$baseline_main" allreduce "$(list "${sizes[@]}")" \
        "${baseline_reps[@]}"
    perf_run ofinet "$this_cp" io.ofinet.tools.perf.OfinetPerf exchange "$(list "${steps[@]}")" --reps 1
}

for round in $(seq "$rounds"); do
    # Odd rounds run Open MPI first, even rounds ofinet first.
    if [ $((round % 2)) -eq 1 ]; then
        mpi_round
        ofinet_round
    else
        ofinet_round
        mpi_round
    fi
done
compare_report allreduce --figures "$figures" --rounds "$rounds" --sizes "$(list "${sizes[@]}")" \
    --steps "$(list "${steps[@]}")" ${baseline:+--baseline}
compare_end
