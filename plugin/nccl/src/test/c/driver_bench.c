/*
 * nccl_driver bench [latency|bandwidth|drained] [SIZE ...]
 *
 * ofinet-perf's measurements through the table only, as NCCL's proxy makes its calls (post, then
 * test until done): one-way latency (half the round trip of a pingpong), bandwidth with 16 sends
 * in flight (a sliding window: one posted as soon as one completes), and bandwidth with windows of
 * 16 drained in order (drained: 16 posted, then the oldest tested until done, then the next, and a
 * 1-byte acknowledgement from rank 1 closes each window), between this process (rank 0) and a
 * forked one (rank 1). Each size first runs an untimed pass of its own measurement (at least
 * 10,000 iterations, at most 1 GiB, 1 s, and until both ranks' JIT compilers are quiet), then a
 * warm-up and five timed repetitions, as ofinet-perf does: a warm-up or repetition during which a
 * rank's compilers worked is run again (driver_jit.c). The table shows the median with the spread
 * of all five, (max - min) / median, how many repetitions were run again, and a CSV line per size
 * (prefix "csv,"; both bandwidths in GB/s). The last message of every repetition is checked. The
 * latency run also reports what Java allocated per call on the calling thread in steady state (the
 * finalize of a spare context logs the thread's allocated bytes); a bandwidth run first names the
 * kernel's TCP congestion control. Another plugin runs it through NCCL_NET_PLUGIN (the C++ one,
 * docs/PERFORMANCE.md), without the reading of ofinet's JVM.
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
/* How long each of the allocation check's four runs may take at most (20,000 round trips quiet). */
#define ALLOCATION_SECONDS 10.0
#define MAX_SIZE (8 * MiB)
#define MAX_WARMUPS 10
#define REDO_BUDGET 5

/* What the bench measures: latency, or bandwidth with a sliding window or with drained windows. */
enum mode { LATENCY, SLIDING, DRAINED };

struct peer {
    ncclNet_v12_t *net;
    void *ctx, *send, *recv, *send_mr, *recv_mr;
    unsigned char *sbuf, *rbuf;
    int rank;
    int sock; /* to the other rank: votes and decisions between measurements */
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

/* Posts the next transfer of the window: NULL when the plugin cannot take it yet. */
static void *post_next(struct peer *p, size_t size) {
    void *req = NULL;
    ncclResult_t r;
    if (p->rank == 0) {
        r = p->net->isend(p->send, p->sbuf, size, 0, p->send_mr, NULL, &req);
    } else {
        void *data = p->rbuf;
        size_t capacity = size;
        int tag = 0;
        r = p->net->irecv(p->recv, 1, &data, &capacity, &tag, &p->recv_mr, NULL, &req);
    }
    if (r != ncclSuccess) {
        check(0, "posting a transfer of %zu bytes", size);
        exit(1);
    }
    return req;
}

/*
 * WINDOW transfers in flight all along, as NCCL's proxy keeps its steps in flight (and ofinet-perf
 * and fi_window theirs): a transfer is posted as soon as one completes, and the oldest is tested.
 */
static double window(struct peer *p, size_t size, int windows) {
    void *reqs[WINDOW];
    long total = (long)WINDOW * windows, posted = 0, done = 0;
    double start = now_seconds();
    struct idle_polls wait = {.deadline = start + 60, .seconds = 60};
    while (done < total) {
        int progressed = 0;
        while (posted < total && posted - done < WINDOW) {
            void *req = post_next(p, size);
            if (req == NULL) {
                break;
            }
            reqs[posted++ % WINDOW] = req;
            progressed = 1;
        }
        if (done < posted) {
            int finished = 0;
            if (p->net->test(reqs[done % WINDOW], &finished, NULL) != ncclSuccess) {
                check(0, "transfer %ld of %ld", done, total);
                exit(1);
            }
            if (finished) {
                done++;
                progressed = 1;
            }
        }
        if (progressed) {
            wait.idle = 0;
        } else if (!idle_poll(&wait)) {
            check(0, "transfer %ld of %ld completed within 60 s", done, total);
            exit(1);
        }
    }
    /* Rank 1 says it has everything: the time is rank 0's until then. */
    if (p->rank == 0) {
        post_and_wait_recv(p, 1);
    } else {
        post_and_wait_send(p, 1);
    }
    double seconds = now_seconds() - start;
    return (double)size * total / seconds / 1e9; /* GB/s */
}

/* Posts the next transfer of the window, again while the plugin cannot take it yet (60 s at most). */
static void *post_taken(struct peer *p, size_t size) {
    struct idle_polls wait = {.seconds = 60};
    for (;;) {
        void *req = post_next(p, size);
        if (req != NULL) {
            return req;
        }
        if (!idle_poll(&wait)) {
            check(0, "the plugin took a transfer of %zu bytes within 60 s", size);
            exit(1);
        }
    }
}

/*
 * `windows` windows of WINDOW transfers, each drained in order, as a framework that posts a batch
 * and waits for it does (and NCCL's proxy, which tests its oldest step first): all WINDOW posted,
 * then the oldest tested until it is done, then the next. Rank 1 then sends a 1-byte
 * acknowledgement, which rank 0 awaits before its next window, so that windows do not overlap; rank
 * 0 posts the acknowledgement's receive before its window's sends, as a pingpong posts its receive
 * ahead of the message it waits for.
 */
static double drained(struct peer *p, size_t size, int windows) {
    void *reqs[WINDOW];
    double start = now_seconds();
    for (int w = 0; w < windows; w++) {
        void *ack = p->rank == 0 ? post_receive(p, 1) : NULL;
        for (int i = 0; i < WINDOW; i++) {
            reqs[i] = post_taken(p, size);
        }
        for (int i = 0; i < WINDOW; i++) {
            if (await_request(p->net, reqs[i], NULL, 60) != ncclSuccess) {
                check(0, "transfer %d of window %d of %d", i, w, windows);
                exit(1);
            }
        }
        if (p->rank == 0) {
            wait_receive(p, ack, 1);
        } else {
            post_and_wait_send(p, 1);
        }
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

/* What Java allocated on this thread, through a spare context's finalize; -1 if it did not say. */
static long long allocated(struct peer *p) {
    void *spare = NULL;
    forget_java_readings();
    if (p->net->init(&spare, 77, comm_config(), driver_logger, NULL) != ncclSuccess ||
        p->net->finalize(spare) != ncclSuccess) {
        return -1;
    }
    return java_allocated_on_this_thread();
}

static void connect_both(struct peer *p) {
    unsigned char mine[NCCL_NET_HANDLE_MAXSIZE], theirs[NCCL_NET_HANDLE_MAXSIZE];
    void *listen = NULL;
    if (p->net->listen(p->ctx, 0, mine, &listen) != ncclSuccess || write(p->sock, mine, sizeof mine) != sizeof mine ||
        read(p->sock, theirs, sizeof theirs) != sizeof theirs) {
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

/* Whether either rank says yes: rank 1 tells rank 0, which answers for both. Exits on a broken socket. */
static int any_rank(struct peer *p, int mine) {
    int theirs = 0, any = mine;
    if (p->rank == 1) {
        if (write(p->sock, &mine, sizeof mine) != sizeof mine || read(p->sock, &any, sizeof any) != sizeof any) {
            exit(1);
        }
        return any;
    }
    if (read(p->sock, &theirs, sizeof theirs) != sizeof theirs) {
        exit(1);
    }
    any = mine || theirs;
    if (write(p->sock, &any, sizeof any) != sizeof any) {
        exit(1);
    }
    return any;
}

static double timed(struct peer *p, size_t size, enum mode mode, int iters) {
    switch (mode) {
    case SLIDING:
        return window(p, size, iters);
    case DRAINED:
        return drained(p, size, iters);
    default:
        return pingpong(p, size, iters);
    }
}

/*
 * The untimed pass before each size, as ofinet-perf's: the size's own measurement, in rounds of
 * `iters`, until at least 10,000 iterations (at most 1 GiB moved) and 1 s have run and both ranks'
 * JIT compilers have been quiet for JIT_QUIET_SECONDS, at most 30 s in all (a loaded machine may
 * not run 10,000 round trips in that time), so that the size's path (eager, announced, written) is
 * compiled before it is timed. Rank 0 decides for both.
 */
static void untimed_pass(struct peer *p, size_t size, enum mode mode, int iters) {
    long long per_iteration = mode != LATENCY ? (long long)size * WINDOW : (long long)size;
    long long wanted = 10000;
    if (per_iteration > 0 && wanted * per_iteration > (1LL << 30)) {
        wanted = (1LL << 30) / per_iteration;
    }
    long long done = 0;
    double start = now_seconds();
    struct jit_watch jit = {.seen = -1};
    for (int more = 1; more;) {
        timed(p, size, mode, iters);
        done += iters;
        double now = now_seconds();
        int compiling = any_rank(p, !jit_quiet(&jit, now));
        /* Rank 0's decision, for both. */
        more = any_rank(p, p->rank == 0 && (now - start < 1.0 || ((done < wanted || compiling) && now - start < 30.0)));
    }
}

/*
 * Round trips of `size` in rounds of 1,000 until `most` have run or `seconds` have passed (one
 * round at least), rank 0 deciding for both; returns how many ran. On a machine doing other work a
 * round trip can take a thousand times as long as on a quiet one: the count gives way, not the
 * bound the caller is held to.
 */
static int pingpong_for(struct peer *p, size_t size, int most, double seconds) {
    int done = 0;
    double start = now_seconds();
    for (int more = 1; more;) {
        pingpong(p, size, 1000);
        done += 1000;
        more = any_rank(p, p->rank == 0 && done < most && now_seconds() - start < seconds);
    }
    return done;
}

/* The warm-up, run again while either rank's compilers worked during it (at most MAX_WARMUPS times). */
static void warm_up(struct peer *p, size_t size, enum mode mode, int iters) {
    for (int n = 0; n < MAX_WARMUPS; n++) {
        long long before = jit_compiler_ns();
        timed(p, size, mode, iters);
        if (!any_rank(p, jit_worked_since(before))) {
            return;
        }
    }
}

/*
 * REPS timed repetitions; one during which either rank's compilers worked is run again after a
 * warm-up, at most REDO_BUDGET times. Returns how many were run again.
 */
static int repetitions(struct peer *p, size_t size, enum mode mode, int iters, double *reps) {
    int redone = 0;
    for (int r = 0; r < REPS; r++) {
        long long before = jit_compiler_ns();
        reps[r] = timed(p, size, mode, iters);
        if (any_rank(p, redone < REDO_BUDGET && jit_worked_since(before))) {
            redone++;
            r--;
            warm_up(p, size, mode, iters);
        }
    }
    return redone;
}

/*
 * The kernel's TCP congestion control, which sets loopback TCP's pace: under BBR a window that
 * empties moves more slowly than one that slides, ofinet's and the C++ plugin's (docs/PERFORMANCE.md).
 * "unknown" where /proc does not say.
 */
static const char *congestion_control(void) {
    static char name[32];
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");
    int ok = f != NULL && fgets(name, sizeof name, f) != NULL;
    if (f != NULL) {
        fclose(f);
    }
    if (!ok) {
        return "unknown";
    }
    name[strcspn(name, "\n")] = '\0';
    return name;
}

static int bench(int rank, int sock, enum mode mode, size_t *sizes, int nsizes) {
    static const char *const titles[] = {"latency (one way)", "bandwidth (16 in flight)",
                                         "bandwidth (windows of 16 drained in order, a 1-byte ack after each)"};
    int bandwidth = mode != LATENCY;
    struct peer p = {.rank = rank, .sock = sock};
    driver_side = rank == 0 ? "rank 0" : "rank 1";
    p.sbuf = aligned_alloc(4096, MAX_SIZE);
    p.rbuf = aligned_alloc(4096, MAX_SIZE);
    p.net = load_table();
    if (p.sbuf == NULL || p.rbuf == NULL || p.net == NULL ||
        p.net->init(&p.ctx, 1, comm_config(), driver_logger, NULL) != ncclSuccess) {
        return 1;
    }
    connect_both(&p);
    if (rank == 0) {
        printf("# nccl_driver bench %s through ncclNetPlugin_v12; median of %d repetitions, disp = (max - min) / median\n",
               titles[mode], REPS);
        if (bandwidth) {
            printf("# the kernel's TCP congestion control: %s (loopback TCP moves at its pace: docs/PERFORMANCE.md)\n",
                   congestion_control());
        }
        printf("#%12s %12s %12s %8s %7s\n", "size", bandwidth ? "busbw(GB/s)" : "time(us)", "iters", "disp(%)",
               "redone");
        printf("csv,size,%s,iters,disp,redone\n", bandwidth ? "gbps" : "us");
    }
    for (int k = 0; k < nsizes; k++) {
        size_t size = sizes[k];
        int iters = iterations(size, bandwidth);
        fill_pattern(p.sbuf, size, (unsigned)size);
        untimed_pass(&p, size, mode, iters);
        warm_up(&p, size, mode, iters);
        double reps[REPS];
        int redone = repetitions(&p, size, mode, iters, reps);
        if (!bandwidth || rank == 1) {
            check(has_pattern(p.rbuf, size, (unsigned)size), "%zu bytes arrived intact", size);
        }
        qsort(reps, REPS, sizeof reps[0], by_value);
        double median = reps[REPS / 2];
        if (rank == 0) {
            double disp = (reps[REPS - 1] - reps[0]) / median * 100;
            printf("%13zu %12.3f %12d %8.1f %7d\n", size, median, iters, disp, redone);
            printf("csv,%zu,%.4f,%d,%.2f,%d\n", size, median, iters, disp, redone);
        }
    }
    if (!bandwidth && !is_ofinet(p.net)) {
        /* Another plugin (NCCL_NET_PLUGIN; the C++ plugin, as docs/PERFORMANCE.md runs it): no JVM to read. */
        printf("%s: not ofinet (the table's name is %s): Java's allocation per call not measured\n", driver_side,
               table_name(p.net));
    } else if (!bandwidth) {
        /*
         * Steady state: the smallest size again between two readings. What the second reading's
         * own init and finalize allocate is counted too: an upper bound (about 1.2 KB, 0.015 bytes
         * per call). What ofinet's timed duties allocate on the calling thread is counted as well:
         * the look at a peer process in /proc, every 250 ms per communicator, allocates a file
         * handle and its name (about 2.5 KB a second here), and on a loaded machine a measurement
         * lasts long enough for that to pass a byte per call. A caller that checks allocation per
         * call turns the look off (peerProcessCheckDisable, as NcclDriverIT does); the window then
         * holds the calls and the reading only.
         */
        int calls_per_iter = 4; /* an isend or irecv and at least one test, twice */
        double per_call = 1e9;
        /* Warm: the JIT compilers finish what the sizes above started. */
        pingpong_for(&p, sizes[0], 20000, ALLOCATION_SECONDS);
        /*
         * A reading of its own first: what the first reading does after its count (its log line's
         * string concatenation linked, the JVM's threads counted: about 200 KB) stays out of the
         * measurements, where it made the first one read 2.5 bytes per call.
         */
        allocated(&p);
        /* The least of three measurements: a JIT compilation during one allocates on its own. */
        for (int m = 0; m < 3; m++) {
            long long before = allocated(&p);
            int iters = pingpong_for(&p, sizes[0], 20000, ALLOCATION_SECONDS);
            long long after = allocated(&p);
            double measured = before < 0 || after < 0 ? 1e9 : (double)(after - before) / ((double)iters * calls_per_iter);
            printf("%s: Java allocated at most %.3f bytes per call through the table in steady state (%lld bytes"
                   " over %d iterations, a reading included)\n", driver_side, measured, after - before, iters);
            per_call = measured < per_call ? measured : per_call;
        }
        check(per_call < 1.0, "no allocation per call through the table (%.3f bytes per call)", per_call);
    }
    return driver_failed == 0 ? 0 : 1;
}

int run_bench(int argc, char **argv) {
    enum mode mode = LATENCY;
    if (argc >= 3 && strcmp(argv[2], "bandwidth") == 0) {
        mode = SLIDING;
    } else if (argc >= 3 && strcmp(argv[2], "drained") == 0) {
        mode = DRAINED;
    } else if (argc >= 3 && strcmp(argv[2], "latency") != 0) {
        fprintf(stderr, "bench: latency, bandwidth or drained, then the sizes: not %s\n", argv[2]);
        return 2;
    }
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
        alarm(n * 60 + 120 > 600 ? (unsigned)n * 60 + 120 : 600); /* a minute a size, 10 at least */
        /* exit(), not _exit(): the library's exit handler removes the child's /dev/shm names. */
        exit(bench(1, socks[1], mode, sizes, n));
    }
    close(socks[1]);
    int status = bench(0, socks[0], mode, sizes, n);
    int child_status = 0;
    waitpid(child, &child_status, 0);
    return status == 0 && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0 ? 0 : 1;
}
