/*
 * The C baseline of `bin/ofinet-compare allreduce`: MPI_Allreduce (float sum) timed as
 * nccl-tests times it, for each size given in bytes. Rank 0 prints "size time_us busbw_gbs",
 * where busbw = size / time * 2 (n - 1) / n. The buffers start on a page, as ofinet-perf's do.
 *
 * With -x first, it times the exchange instead, one step of a ring: every rank sends the size to
 * the next rank and receives as much from the previous one at once (MPI_Sendrecv), as
 * `ofinet-perf exchange` does; the third column is then size / time.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int exchange;

static void step(float *in, float *out, int count, int rank, int ranks) {
    if (exchange) {
        MPI_Sendrecv(in, count, MPI_FLOAT, (rank + 1) % ranks, 0, out, count, MPI_FLOAT, (rank + ranks - 1) % ranks,
                     0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "-x") == 0) {
        exchange = 1;
        first = 2;
    }
    for (int a = first; a < argc; a++) {
        long bytes = atol(argv[a]);
        int count = (int) (bytes / sizeof(float));
        float *in = NULL, *out = NULL;
        if (posix_memalign((void **) &in, 4096, bytes) != 0 || posix_memalign((void **) &out, 4096, bytes) != 0) {
            fprintf(stderr, "rank %d: no memory for %ld bytes\n", rank, bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i < count; i++) {
            in[i] = (float) (rank + i % 7);
        }
        for (int i = 0; i < 20; i++) {
            step(in, out, count, rank, ranks);
        }
        /* About 0.5 s per size, decided by rank 0 from one timed call. */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        step(in, out, count, rank, ranks);
        int iters = (int) (0.5 / (MPI_Wtime() - t0 + 1e-9));
        iters = iters < 10 ? 10 : iters > 100000 ? 100000 : iters;
        MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            step(in, out, count, rank, ranks);
        }
        double us = (MPI_Wtime() - t0) / iters * 1e6;
        if (rank == 0) {
            printf("%ld %.2f %.3f\n", bytes, us, bytes / us / 1e3 * (exchange ? 1.0 : 2.0 * (ranks - 1) / ranks));
            fflush(stdout);
        }
        free(in);
        free(out);
    }
    MPI_Finalize();
    return 0;
}
