/*
 * nccl_driver bench [latency|bandwidth] [SIZE ...]
 *
 * ofinet-perf's measurements through the table only, as NCCL's proxy makes its calls (post, then
 * test until done): one-way latency (half the round trip of a pingpong) and bandwidth with 16 sends
 * in flight, between this process (rank 0) and a forked one (rank 1). Each size first runs an
 * untimed pass of its own measurement (at least 10,000 iterations, at most 1 GiB, and 1 s), then a
 * warm-up and five timed repetitions; the table shows the median with the spread of all five, (max - min) /
 * median, and a CSV line per size (prefix "csv,"). The last message of every repetition is
 * checked. The latency run also reports what Java allocated per call on the calling thread in
 * steady state (the finalize of a spare context logs the thread's allocated bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

#define WINDOW 16
#define REPS 5
#define MAX_SIZE (8 * MiB)

struct peer {
    ncclNet_v12_t *net;
    void *ctx, *send, *recv, *send_mr, *recv_mr;
    unsigned char *sbuf, *rbuf;
    int rank;
};

static void post_and_wait_send(struct peer *p, size_t size) {
    void *req = NULL;
    while (p->net->isend(p->send, p->sbuf, size, 0, p->send_mr, NULL, &req) == ncclSuccess && req == NULL) {
    }
    if (req == NULL || await_request(p->net, req, NULL, 60) != ncclSuccess) {
        check(0, "a send of %zu bytes", size);
        exit(1);
    }
}

/* Posts a receive of up to size bytes into rbuf. */
static void *post_receive(struct peer *p, size_t size) {
    void *req = NULL;
    void *data = p->rbuf;
    int tag = 0;
    while (p->net->irecv(p->recv, 1, &data, &size, &tag, &p->recv_mr, NULL, &req) == ncclSuccess && req == NULL) {
    }
    if (req == NULL) {
        check(0, "a receive of %zu bytes", size);
        exit(1);
    }
    return req;
}

static void wait_receive(struct peer *p, void *req, size_t size) {
    int got = -1;
    if (await_request(p->net, req, &got, 60) != ncclSuccess) {
        check(0, "a receive of %zu bytes", size);
        exit(1);
    }
}

static void post_and_wait_recv(struct peer *p, size_t size) {
    wait_receive(p, post_receive(p, size), size);
}

/* Each receive is posted before the send ahead of it, as fi_pingpong posts its receives (and ofinet-perf). */
static double pingpong(struct peer *p, size_t size, int iters) {
    double start = now_seconds();
    void *recv = iters > 0 ? post_receive(p, size) : NULL;
    for (int i = 0; i < iters; i++) {
        int more = i + 1 < iters;
        if (p->rank == 0) {
            post_and_wait_send(p, size);
            wait_receive(p, recv, size);
            recv = more ? post_receive(p, size) : NULL;
        } else {
            wait_receive(p, recv, size);
            recv = more ? post_receive(p, size) : NULL;
            post_and_wait_send(p, size);
        }
    }
    return (now_seconds() - start) * 1e6 / iters / 2; /* one way, us */
}

static double window(struct peer *p, size_t size, int windows) {
    double start = now_seconds();
    for (int w = 0; w < windows; w++) {
        void *reqs[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            reqs[i] = NULL;
            if (p->rank == 0) {
                while (p->net->isend(p->send, p->sbuf + (size_t)i * 0, size, 0, p->send_mr, NULL, &reqs[i]) ==
                           ncclSuccess && reqs[i] == NULL) {
                }
            } else {
                void *data = p->rbuf;
                size_t capacity = size;
                int tag = 0;
                while (p->net->irecv(p->recv, 1, &data, &capacity, &tag, &p->recv_mr, NULL, &reqs[i]) == ncclSuccess &&
                       reqs[i] == NULL) {
                }
            }
        }
        for (int i = 0; i < WINDOW; i++) {
            if (reqs[i] == NULL || await_request(p->net, reqs[i], NULL, 60) != ncclSuccess) {
                check(0, "window %d, request %d", w, i);
                exit(1);
            }
        }
    }
    /* Rank 1 says it has everything: the time is rank 0's until then. */
    if (p->rank == 0) {
        post_and_wait_recv(p, 1);
    } else {
        post_and_wait_send(p, 1);
    }
    double seconds = now_seconds() - start;
    return (double)size * WINDOW * windows / seconds / 1e9; /* GB/s */
}

static int iterations(size_t size, int bandwidth) {
    if (bandwidth) {
        return size <= 65536 ? 200 : size <= MiB ? 40 : 8;
    }
    return size <= 65536 ? 2000 : size <= MiB ? 200 : 30;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* What Java allocated on this thread, through a spare context's finalize. */
static long long allocated(struct peer *p) {
    void *spare = NULL;
    if (p->net->init(&spare, 77, NULL, driver_logger, NULL) != ncclSuccess || p->net->finalize(spare) != ncclSuccess) {
        return -1;
    }
    return java_allocated_on_this_thread();
}

static void connect_both(struct peer *p, int sock) {
    unsigned char mine[NCCL_NET_HANDLE_MAXSIZE], theirs[NCCL_NET_HANDLE_MAXSIZE];
    void *listen = NULL;
    if (p->net->listen(p->ctx, 0, mine, &listen) != ncclSuccess || write(sock, mine, sizeof mine) != sizeof mine ||
        read(sock, theirs, sizeof theirs) != sizeof theirs) {
        check(0, "listen and exchange handles");
        exit(1);
    }
    double deadline = now_seconds() + 60;
    while ((p->send == NULL || p->recv == NULL) && now_seconds() < deadline) {
        if (p->send == NULL && p->net->connect(p->ctx, 0, theirs, &p->send, NULL) != ncclSuccess) {
            break;
        }
        if (p->recv == NULL && p->net->accept(listen, &p->recv, NULL) != ncclSuccess) {
            break;
        }
    }
    if (p->send == NULL || p->recv == NULL || p->net->regMr(p->send, p->sbuf, MAX_SIZE, NCCL_PTR_HOST, &p->send_mr) ||
        p->net->regMr(p->recv, p->rbuf, MAX_SIZE, NCCL_PTR_HOST, &p->recv_mr)) {
        check(0, "connected both ways");
        exit(1);
    }
}

/*
 * The untimed pass before each size, as ofinet-perf's --untimed: the size's own measurement, in
 * rounds of `iters`, until at least 10,000 iterations (at most 1 GiB moved) and 1 s have run, so
 * that the size's path (eager, announced, written) leaves the interpreter and the JIT's
 * compilations before it is timed. Both ranks run the same count: rank 0 decides and tells rank 1.
 */
static int untimed_pass(struct peer *p, int sock, size_t size, int bandwidth, int iters) {
    long long per_iteration = bandwidth ? (long long)size * WINDOW : (long long)size;
    long long wanted = 10000;
    if (per_iteration > 0 && wanted * per_iteration > (1LL << 30)) {
        wanted = (1LL << 30) / per_iteration;
    }
    long long done = 0;
    double until = now_seconds() + 1.0;
    for (;;) {
        int more = p->rank == 0 ? (done < wanted || now_seconds() < until) : 1;
        if (p->rank == 0 && write(sock, &more, sizeof more) != sizeof more) {
            return 1;
        }
        if (p->rank == 1 && read(sock, &more, sizeof more) != sizeof more) {
            return 1;
        }
        if (!more) {
            return 0;
        }
        if (bandwidth) {
            window(p, size, iters);
        } else {
            pingpong(p, size, iters);
        }
        done += iters;
    }
}

static int bench(int rank, int sock, int bandwidth, size_t *sizes, int nsizes) {
    struct peer p = {.rank = rank};
    driver_side = rank == 0 ? "rank 0" : "rank 1";
    p.sbuf = aligned_alloc(4096, MAX_SIZE);
    p.rbuf = aligned_alloc(4096, MAX_SIZE);
    p.net = load_table();
    if (p.sbuf == NULL || p.rbuf == NULL || p.net == NULL ||
        p.net->init(&p.ctx, 1, NULL, driver_logger, NULL) != ncclSuccess) {
        return 1;
    }
    connect_both(&p, sock);
    if (rank == 0) {
        printf("# nccl_driver bench %s through ncclNetPlugin_v12; median of %d repetitions, disp = (max - min) / median\n",
               bandwidth ? "bandwidth (16 in flight)" : "latency (one way)", REPS);
        printf("#%12s %12s %12s %8s\n", "size", bandwidth ? "busbw(GB/s)" : "time(us)", "iters", "disp(%)");
        printf("csv,size,%s,iters,disp\n", bandwidth ? "gbps" : "us");
    }
    for (int k = 0; k < nsizes; k++) {
        size_t size = sizes[k];
        int iters = iterations(size, bandwidth);
        if (untimed_pass(&p, sock, size, bandwidth, iters) != 0) {
            return 1;
        }
        double reps[REPS];
        fill_pattern(p.sbuf, size, (unsigned)size);
        if (bandwidth) {
            window(&p, size, iters); /* warm-up */
        } else {
            pingpong(&p, size, iters);
        }
        for (int r = 0; r < REPS; r++) {
            reps[r] = bandwidth ? window(&p, size, iters) : pingpong(&p, size, iters);
        }
        if (!bandwidth || rank == 1) {
            check(has_pattern(p.rbuf, size, (unsigned)size), "%zu bytes arrived intact", size);
        }
        qsort(reps, REPS, sizeof reps[0], by_value);
        double median = reps[REPS / 2];
        if (rank == 0) {
            printf("%13zu %12.3f %12d %8.1f\n", size, median, iters, (reps[REPS - 1] - reps[0]) / median * 100);
            printf("csv,%zu,%.4f,%d,%.2f\n", size, median, iters, (reps[REPS - 1] - reps[0]) / median * 100);
        }
    }
    if (!bandwidth) {
        /*
         * Steady state: the smallest size again between two readings. What the second reading's
         * own init and finalize allocate is counted too: an upper bound.
         */
        int calls_per_iter = 4; /* an isend or irecv and at least one test, twice */
        int iters = 20000;
        double per_call = 1e9;
        pingpong(&p, sizes[0], iters); /* warm: the JIT compilers finish what the sizes above started */
        /* The least of three measurements: a JIT compilation during one allocates on its own. */
        for (int m = 0; m < 3; m++) {
            long long before = allocated(&p);
            pingpong(&p, sizes[0], iters);
            long long after = allocated(&p);
            double measured = before < 0 ? 1e9 : (double)(after - before) / ((double)iters * calls_per_iter);
            printf("%s: Java allocated at most %.3f bytes per call through the table in steady state (%lld bytes"
                   " over %d iterations, a reading included)\n", driver_side, measured, after - before, iters);
            per_call = measured < per_call ? measured : per_call;
        }
        check(per_call < 1.0, "no allocation per call through the table (%.3f bytes per call)", per_call);
    }
    return driver_failed == 0 ? 0 : 1;
}

int run_bench(int argc, char **argv) {
    int bandwidth = argc >= 3 && strcmp(argv[2], "bandwidth") == 0;
    size_t sizes[32];
    int n = 0;
    for (int i = 3; i < argc && n < 32; i++) {
        sizes[n++] = (size_t)strtoull(argv[i], NULL, 10);
    }
    if (n == 0) {
        static const size_t defaults[] = {8, 4096, 65536, 1048576, 8388608};
        for (; n < 5; n++) {
            sizes[n] = defaults[n];
        }
    }
    int socks[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks) != 0) {
        return 1;
    }
    fflush(NULL); /* the child exits through exit(): nothing buffered here may be written twice */
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "fork: %s\n", strerror(errno));
        return 1;
    }
    if (child == 0) {
        close(socks[0]);
        alarm(600);
        /* exit(), not _exit(): the library's exit handler removes the child's /dev/shm names. */
        exit(bench(1, socks[1], bandwidth, sizes, n));
    }
    close(socks[1]);
    int status = bench(0, socks[0], bandwidth, sizes, n);
    int child_status = 0;
    waitpid(child, &child_status, 0);
    return status == 0 && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0 ? 0 : 1;
}
