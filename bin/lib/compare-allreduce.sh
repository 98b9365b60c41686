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
# difference lies in the transfers.
#   --rounds N       N rounds instead of three
#   --baseline DIR   also another ofinet checkout, run in every round right after this one
set -euo pipefail
source "$(dirname "$0")/common.sh"
# libfabric, and Open MPI's mpirun and mpicc for the MPI side.
ofinet_require_packages libfabric1 openmpi-bin libopenmpi-dev
baseline=""
rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --baseline)
            baseline=$(cd "$2" && pwd)
            baseline_cp=$(bash -c 'source "$1/bin/lib/common.sh"; ofinet_build_if_needed "$2"; ofinet_classpath "$2"' _ \
                "$baseline" "$(ofinet_perf_module "$baseline")")
            baseline_main=$(ofinet_perf_main "$baseline")
            shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        *) echo "compare-allreduce: unknown argument $1 (--rounds N, --baseline DIR)" >&2; exit 2 ;;
    esac
done
sizes=(1048576 2097152 4194304 8388608)
steps=(1048576 2097152 4194304)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The median over the rounds of FILE_A's line i divided by FILE_B's line i ("-" if a run gave no figure).
paired() {
    if [ "$(grep -c . "$1")" -ne "$rounds" ] || [ "$(grep -c . "$2")" -ne "$rounds" ]; then
        printf -- "-"
        return
    fi
    paste -d ' ' "$1" "$2" | awk '{printf "%.4f\n", $1 / $2}' | median | awk '{printf "%.2f", $1}'
}

mpicc -O2 -o "$work/mpi_allreduce" "$OFINET_ROOT/bin/lib/mpi_allreduce.c"
as_root=()
[ "$(id -u)" -ne 0 ] || as_root=(--allow-run-as-root)
cp=$(ofinet_build_if_needed tools; ofinet_classpath tools)
mpi_round() { # MPI_Allreduce, then MPI_Sendrecv
    timeout 300 mpirun "${as_root[@]}" -np 2 --oversubscribe --bind-to none --mca btl tcp,self \
        --mca btl_tcp_if_include lo "$work/mpi_allreduce" "${sizes[@]}" > "$work/mpi.txt"
    while read -r size _ busbw; do echo "$busbw" >> "$work/mpi_$size"; done < "$work/mpi.txt"
    timeout 300 mpirun "${as_root[@]}" -np 2 --oversubscribe --bind-to none --mca btl tcp,self \
        --mca btl_tcp_if_include lo "$work/mpi_allreduce" -x "${steps[@]}" > "$work/mpi.txt"
    while read -r size _ algbw; do echo "$algbw" >> "$work/mpix_$size"; done < "$work/mpi.txt"
}

ofinet_round() { # this tree's allreduce, the baseline's, then this tree's exchange
    local tag tcp main
    for tag in o ${baseline:+b}; do
        tcp=$([ "$tag" = o ] && echo "$cp" || echo "$baseline_cp")
        main=$([ "$tag" = o ] && echo io.ofinet.tools.perf.OfinetPerf || echo "$baseline_main")
        java $(ofinet_native_access) $(ofinet_vector_module) -cp "$tcp" \
            "$main" allreduce -n 2 --provider "tcp;ofi_rxm" \
            --sizes="$(IFS=,; echo "${sizes[*]}")" --reps 1 --csv "$work/$tag.csv" > /dev/null 2>&1
        tail -n +2 "$work/$tag.csv" | while IFS=, read -r _ _ _ size _ _ _ _ busbw _; do echo "$busbw" >> "$work/${tag}_$size"; done
    done
    java $(ofinet_native_access) -cp "$cp" io.ofinet.tools.perf.OfinetPerf exchange -n 2 --provider "tcp;ofi_rxm" \
        --sizes="$(IFS=,; echo "${steps[*]}")" --reps 1 --csv "$work/x.csv" > /dev/null 2>&1
    tail -n +2 "$work/x.csv" | while IFS=, read -r _ _ _ size _ _ _ algbw _; do echo "$algbw" >> "$work/ox_$size"; done
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
echo "== allreduce, 2 ranks, tcp on loopback (medians of $rounds runs; Open MPI first in odd rounds, ofinet first in even ones${baseline:+, this tree before the baseline})"
printf "%-10s %18s %18s %8s %8s" "size" "MPI busbw GB/s" "ofinet busbw GB/s" "ratio" "paired"
[ -z "$baseline" ] && echo || printf " %18s %8s %8s\n" "baseline GB/s" "ratio" "paired"
for s in "${sizes[@]}"; do
    m=$(median < "$work/mpi_$s"); o=$(median < "$work/o_$s")
    printf "%-10s %18s %18s %8.2f %8s" "$s" "$m" "$o" "$(awk -v a="$o" -v b="$m" 'BEGIN {print a / b}')" \
        "$(paired "$work/o_$s" "$work/mpi_$s")"
    if [ -z "$baseline" ]; then
        echo
    else
        b=$(median < "$work/b_$s")
        printf " %18s %8.2f %8s\n" "$b" "$(awk -v a="$b" -v b="$m" 'BEGIN {print a / b}')" \
            "$(paired "$work/b_$s" "$work/mpi_$s")"
    fi
done
echo "== exchange, 2 ranks: one step of the allreduce, each rank sending the size and receiving as much at once"
echo "   (medians of $rounds runs; MPI_Sendrecv after MPI_Allreduce, this tree's ofinet-perf exchange after its allreduce)"
printf "%-10s %18s %18s %8s %8s\n" "size" "MPI GB/s" "ofinet GB/s" "ratio" "paired"
for s in "${steps[@]}"; do
    m=$(median < "$work/mpix_$s"); o=$(median < "$work/ox_$s")
    printf "%-10s %18s %18s %8.2f %8s\n" "$s" "$m" "$o" "$(awk -v a="$o" -v b="$m" 'BEGIN {print a / b}')" \
        "$(paired "$work/ox_$s" "$work/mpix_$s")"
done
