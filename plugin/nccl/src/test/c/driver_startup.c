/*
 * nccl_driver startup [--cold N] [--tail N] [--bootstrap MS] [--hold SECONDS]
 *
 * What a rank pays for ofinet, through the table as NCCL calls it: two processes, this one (rank 0)
 * and one forked before either loads the library (rank 1), each paying its own start, over the
 * provider OFINET_LAYOUT names. Each rank measures:
 *   - dlopen and dlsym of the table, then the first init, in which ofinet creates its JVM, and init
 *     split by the library's log line of its start (libjvm loaded, the JVM created, ofinet's
 *     classes and bridge) and Java's (the plugin's init: libfabric loaded, the layout read or
 *     discovered); the rest is init's time outside those;
 *   - the first listen (which opens the device), connect and accept (each from the first call
 *     until its communicator came, the two called in turn), the first regMr pair (2 x 8 MiB of host
 *     memory), the first irecv, isend and test call, and the first round trip of 8 B it times;
 *   - the first --cold round trips of 8 B (200 by default; the first one among them), their median
 *     one-way time (half the round trip), and percentiles of the one-way time over the next --tail
 *     (100,000 by default). Rank 0 times from its isend to the reply's arrival, rank 1 from its
 *     isend to the next message's arrival: a round trip each;
 *   - VmRSS and Threads of /proc/self/status before dlopen (the driver alone: its buffers come once connected),
 *     after init, once connected and at the end; Pss after init (/proc/self/smaps_rollup), where
 *     the pages the other rank has mapped too by then (libjvm.so, the AOT cache) count half; and at
 *     the end its resident memory by kind of
 *     mapping (/proc/self/smaps, as pmap -x sums it), its Pss and its private memory.
 * Nothing waits on the JIT compilers: what they cost is part of what a rank pays. Rank 0 prints
 * both ranks' figures as a table and as CSV lines (prefix "csv,": rank, figure, value, unit).
 * --bootstrap stands for NCCL's own work between the plugin's init and its first listen (its
 * bootstrap's all-gather, the topology search): each rank sleeps that long after init (0 by default).
 * --hold keeps both processes alive that long at the end, each printing its pid, for pmap or jcmd.
 * Another plugin (NCCL_NET_PLUGIN) gets the same figures but init's split, which it has no lines for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"

#define SIZE 8
#define REGION (8 * MiB)

enum figure {
    F_DLOPEN, F_INIT, F_START, F_LIBJVM, F_JVM, F_BRIDGE, F_PLUGIN, F_INIT_REST,
    F_LISTEN, F_CONNECT, F_ACCEPT, F_REGMR, F_FIRST_IRECV, F_FIRST_ISEND, F_FIRST_TEST, F_FIRST_ROUNDTRIP,
    F_COLD, F_P50, F_P99, F_P999, F_P9999,
    F_RSS_BEFORE, F_RSS_INIT, F_RSS_CONNECT, F_RSS_END, F_PSS_INIT,
    F_THREADS_BEFORE, F_THREADS_INIT, F_THREADS_CONNECT, F_THREADS_END,
    F_MAP_LIBJVM, F_MAP_AOT, F_MAP_MODULES, F_MAP_LIBFABRIC, F_MAP_FILES, F_MAP_ANONYMOUS, F_PSS, F_PRIVATE,
    FIGURES
};

static const struct {
    const char *name, *unit, *what;
} figures[FIGURES] = {
    [F_DLOPEN] = {"dlopen", "ms", "dlopen and dlsym of the table"},
    [F_INIT] = {"init", "ms", "the first init (the JVM created)"},
    [F_START] = {"start", "ms", "dlopen through init"},
    [F_LIBJVM] = {"init.libjvm", "ms", "init: the JDK checked, libjvm.so loaded"},
    [F_JVM] = {"init.jvm", "ms", "init: JNI_CreateJavaVM"},
    [F_BRIDGE] = {"init.bridge", "ms", "init: ofinet's classes loaded, upcall stubs made"},
    [F_PLUGIN] = {"init.plugin", "ms", "init: the plugin's (libfabric loaded, the layout)"},
    [F_INIT_REST] = {"init.rest", "ms", "init: the rest"},
    [F_LISTEN] = {"listen", "ms", "the first listen (the device opened)"},
    [F_CONNECT] = {"connect", "ms", "connect, until its communicator came"},
    [F_ACCEPT] = {"accept", "ms", "accept, until its communicator came"},
    [F_REGMR] = {"regmr", "ms", "the first regMr pair, 2 x 8 MiB"},
    [F_FIRST_IRECV] = {"first.irecv", "us", "the first irecv call"},
    [F_FIRST_ISEND] = {"first.isend", "us", "the first isend call"},
    [F_FIRST_TEST] = {"first.test", "us", "the first test call"},
    [F_FIRST_ROUNDTRIP] = {"first.roundtrip", "us", "the first round trip of 8 B"},
    [F_COLD] = {"cold.median", "us", "one way, median of the first round trips"},
    [F_P50] = {"tail.p50", "us", "one way, the round trips after them"},
    [F_P99] = {"tail.p99", "us", "one way"},
    [F_P999] = {"tail.p99.9", "us", "one way"},
    [F_P9999] = {"tail.p99.99", "us", "one way"},
    [F_RSS_BEFORE] = {"rss.before", "MiB", "VmRSS before dlopen (the driver; its buffers come once connected)"},
    [F_RSS_INIT] = {"rss.init", "MiB", "VmRSS after init"},
    [F_RSS_CONNECT] = {"rss.connect", "MiB", "VmRSS once connected (before the driver's buffers)"},
    [F_RSS_END] = {"rss.end", "MiB", "VmRSS at the end"},
    [F_PSS_INIT] = {"pss.init", "MiB", "Pss after init (pages the other rank maps too split)"},
    [F_THREADS_BEFORE] = {"threads.before", "count", "threads before dlopen"},
    [F_THREADS_INIT] = {"threads.init", "count", "threads after init"},
    [F_THREADS_CONNECT] = {"threads.connect", "count", "threads once connected"},
    [F_THREADS_END] = {"threads.end", "count", "threads at the end"},
    [F_MAP_LIBJVM] = {"map.libjvm", "MiB", "resident at the end: libjvm.so"},
    [F_MAP_AOT] = {"map.aot", "MiB", "resident at the end: the AOT cache (.aot; a CDS archive, .jsa)"},
    [F_MAP_MODULES] = {"map.modules", "MiB", "resident: the JDK's lib/modules"},
    [F_MAP_LIBFABRIC] = {"map.libfabric", "MiB", "resident: libfabric and its providers"},
    [F_MAP_FILES] = {"map.files", "MiB", "resident: other files"},
    [F_MAP_ANONYMOUS] = {"map.anonymous", "MiB", "resident: anonymous (heaps, stacks, code)"},
    [F_PSS] = {"pss", "MiB", "at the end: Pss (shared pages split)"},
    [F_PRIVATE] = {"private", "MiB", "at the end: private to the rank"},
};

struct rank {
    int rank, sock;
    ncclNet_v12_t *net;
    void *ctx, *listen, *send, *recv, *send_mr, *recv_mr;
    unsigned char *sbuf, *rbuf;
    double *samples; /* round trips, us */
    double v[FIGURES];
};

static void fail(const char *what) {
    check(0, "%s", what);
    exit(1);
}

/* Both ranks reached the same point; exits when the peer is gone. */
static void barrier(struct rank *r) {
    char b = 'b';
    if (write(r->sock, &b, 1) != 1 || read(r->sock, &b, 1) != 1) {
        fail("the other rank reached the same point");
    }
}

/* The value after label in line, or -1 when it is not there. */
static double after(const char *line, const char *label) {
    const char *at = strstr(line, label);
    return at == NULL ? -1 : strtod(at + strlen(label), NULL);
}

static void sample_process(struct rank *r, enum figure rss, enum figure threads) {
    long kb = status_field("VmRSS");
    r->v[rss] = kb < 0 ? -1 : kb / 1024.0;
    r->v[threads] = (double)status_field("Threads");
}

/* dlopen, init and init's split by the library's log lines. */
static void start(struct rank *r) {
    double t0 = now_seconds();
    r->net = load_table();
    double t1 = now_seconds();
    if (r->net == NULL || r->net->init(&r->ctx, 1, comm_config(), driver_logger, NULL) != ncclSuccess) {
        fail("init");
    }
    double t2 = now_seconds();
    r->v[F_DLOPEN] = (t1 - t0) * 1e3;
    r->v[F_INIT] = (t2 - t1) * 1e3;
    r->v[F_START] = (t2 - t0) * 1e3;
    if (!is_ofinet(r->net)) {
        /* Another plugin (NCCL_NET_PLUGIN): its init is not split, and those figures are left out (NAN). */
        r->v[F_LIBJVM] = r->v[F_JVM] = r->v[F_BRIDGE] = r->v[F_PLUGIN] = r->v[F_INIT_REST] = NAN;
        printf("%s: not ofinet (the table's name is %s): init not split\n", driver_side, table_name(r->net));
    } else {
        const char *line = start_line();
        r->v[F_LIBJVM] = after(line, "libjvm loaded in ");
        r->v[F_JVM] = after(line, "the JVM created in ");
        r->v[F_BRIDGE] = after(line, "classes and bridge in ");
        r->v[F_PLUGIN] = after(plugin_init_line(), "discovered) in ");
        check(r->v[F_LIBJVM] >= 0 && r->v[F_JVM] >= 0 && r->v[F_BRIDGE] >= 0 && r->v[F_PLUGIN] >= 0,
              "the library's lines on its start (\"%s\", \"%s\")", line, plugin_init_line());
        r->v[F_INIT_REST] = r->v[F_INIT] - r->v[F_LIBJVM] - r->v[F_JVM] - r->v[F_BRIDGE] - r->v[F_PLUGIN];
    }
    sample_process(r, F_RSS_INIT, F_THREADS_INIT);
    long pss = rollup_field("Pss");
    r->v[F_PSS_INIT] = pss < 0 ? -1 : pss / 1024.0;
}

/* The first listen, connect and accept, then the driver's buffers, made and touched, and the first regMr pair. */
static void connect_ranks(struct rank *r) {
    unsigned char mine[NCCL_NET_HANDLE_MAXSIZE], theirs[NCCL_NET_HANDLE_MAXSIZE];
    double t0 = now_seconds();
    if (r->net->listen(r->ctx, 0, mine, &r->listen) != ncclSuccess || r->listen == NULL) {
        fail("listen");
    }
    r->v[F_LISTEN] = (now_seconds() - t0) * 1e3;
    if (write(r->sock, mine, sizeof mine) != sizeof mine || read(r->sock, theirs, sizeof theirs) != sizeof theirs) {
        fail("handles exchanged with the other rank");
    }
    double begun = now_seconds(), deadline = begun + WAIT_SECONDS;
    while ((r->send == NULL || r->recv == NULL) && now_seconds() < deadline) {
        if (r->send == NULL) {
            if (r->net->connect(r->ctx, 0, theirs, &r->send, NULL) != ncclSuccess) {
                fail("connect");
            }
            r->v[F_CONNECT] = (now_seconds() - begun) * 1e3;
        }
        if (r->recv == NULL) {
            if (r->net->accept(r->listen, &r->recv, NULL) != ncclSuccess) {
                fail("accept");
            }
            r->v[F_ACCEPT] = (now_seconds() - begun) * 1e3;
        }
    }
    if (r->send == NULL || r->recv == NULL) {
        fail("connected both ways");
    }
    sample_process(r, F_RSS_CONNECT, F_THREADS_CONNECT);
    /* The buffers, made and touched once connected, as NCCL makes its own: VmRSS after init and once
     * connected is the plugin's, and nothing of the driver's runs between init and the first listen
     * but its readings of /proc (status and smaps_rollup). */
    r->sbuf = aligned_alloc(4096, REGION);
    r->rbuf = aligned_alloc(4096, REGION);
    if (r->sbuf == NULL || r->rbuf == NULL) {
        fail("the driver's buffers allocated");
    }
    memset(r->sbuf, 0x5A, REGION);
    memset(r->rbuf, EMPTY_BYTE, REGION);
    double t1 = now_seconds();
    if (r->net->regMr(r->send, r->sbuf, REGION, NCCL_PTR_HOST, &r->send_mr) != ncclSuccess ||
        r->net->regMr(r->recv, r->rbuf, REGION, NCCL_PTR_HOST, &r->recv_mr) != ncclSuccess) {
        fail("regMr of 2 x 8 MiB");
    }
    r->v[F_REGMR] = (now_seconds() - t1) * 1e3;
}

/* Posts the receive of the next message, timing the first call. */
static void *post_receive(struct rank *r) {
    void *req = NULL, *data = r->rbuf;
    size_t size = SIZE;
    int tag = 0;
    double t0 = now_seconds();
    do {
        if (r->net->irecv(r->recv, 1, &data, &size, &tag, &r->recv_mr, NULL, &req) != ncclSuccess) {
            fail("irecv");
        }
    } while (req == NULL);
    if (r->v[F_FIRST_IRECV] < 0) {
        r->v[F_FIRST_IRECV] = (now_seconds() - t0) * 1e6;
    }
    return req;
}

/* Tests req until done, timing the first test call of the rank. */
static void wait_for(struct rank *r, void *req, const char *what) {
    if (r->v[F_FIRST_TEST] < 0) {
        int done = 0;
        double t0 = now_seconds();
        ncclResult_t result = r->net->test(req, &done, NULL);
        r->v[F_FIRST_TEST] = (now_seconds() - t0) * 1e6;
        if (result != ncclSuccess) {
            fail(what);
        }
        if (done) {
            return;
        }
    }
    if (await_request(r->net, req, NULL, WAIT_SECONDS) != ncclSuccess) {
        fail(what);
    }
}

/* Sends 8 B and waits until the send is done, timing the first isend call. */
static void send_one(struct rank *r) {
    void *req = NULL;
    double t0 = now_seconds();
    do {
        if (r->net->isend(r->send, r->sbuf, SIZE, 0, r->send_mr, NULL, &req) != ncclSuccess) {
            fail("isend");
        }
    } while (req == NULL);
    if (r->v[F_FIRST_ISEND] < 0) {
        r->v[F_FIRST_ISEND] = (now_seconds() - t0) * 1e6;
    }
    wait_for(r, req, "a send of 8 B");
}

/*
 * `trips` round trips of 8 B, each receive posted before the send ahead of it. Rank 0's sample i is
 * its round trip i (its isend to the reply); rank 1's is its isend i to message i + 1: trips - 1 of them.
 */
static void pingpong(struct rank *r, long trips) {
    void *recv = post_receive(r);
    barrier(r);
    double sent = 0;
    for (long i = 0; i < trips; i++) {
        int more = i + 1 < trips;
        if (r->rank == 0) {
            sent = now_seconds();
            send_one(r);
            wait_for(r, recv, "a receive of 8 B");
            r->samples[i] = (now_seconds() - sent) * 1e6;
            recv = more ? post_receive(r) : NULL;
        } else {
            wait_for(r, recv, "a receive of 8 B");
            if (i > 0) {
                r->samples[i - 1] = (now_seconds() - sent) * 1e6;
            }
            recv = more ? post_receive(r) : NULL;
            sent = now_seconds();
            send_one(r);
        }
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile of n sorted values, nearest rank. */
static double percentile(const double *sorted, long n, double p) {
    long k = (long)(p / 100 * (double)n + 0.999999);
    return sorted[k < 1 ? 0 : k > n ? n - 1 : k - 1];
}

static void latencies(struct rank *r, long cold, long tail) {
    r->v[F_FIRST_ROUNDTRIP] = r->samples[0];
    qsort(r->samples, cold, sizeof r->samples[0], by_value);
    r->v[F_COLD] = percentile(r->samples, cold, 50) / 2;
    double *t = r->samples + cold;
    qsort(t, tail, sizeof t[0], by_value);
    r->v[F_P50] = percentile(t, tail, 50) / 2;
    r->v[F_P99] = percentile(t, tail, 99) / 2;
    r->v[F_P999] = percentile(t, tail, 99.9) / 2;
    r->v[F_P9999] = percentile(t, tail, 99.99) / 2;
}

static void memory_at_end(struct rank *r) {
    static const enum figure kinds[MAP_KINDS] = {
        [MAP_LIBJVM] = F_MAP_LIBJVM, [MAP_AOT] = F_MAP_AOT, [MAP_MODULES] = F_MAP_MODULES,
        [MAP_LIBFABRIC] = F_MAP_LIBFABRIC, [MAP_FILES] = F_MAP_FILES, [MAP_ANONYMOUS] = F_MAP_ANONYMOUS};
    sample_process(r, F_RSS_END, F_THREADS_END);
    struct resident res;
    if (resident_by_kind(&res) != 0) {
        fail("/proc/self/smaps read");
    }
    for (int k = 0; k < MAP_KINDS; k++) {
        r->v[kinds[k]] = res.kb[k] / 1024.0;
    }
    r->v[F_PSS] = res.pss_kb / 1024.0;
    r->v[F_PRIVATE] = res.private_kb / 1024.0;
}

static void print(const double *ranks[2], long cold, long tail) {
    printf("# nccl_driver startup through ncclNetPlugin_v12: what a rank pays, from dlopen on; round trips of 8 B:"
           " %ld cold, %ld after them\n", cold, tail);
    printf("#%-16s %6s %12s %12s  %s\n", "figure", "unit", "rank 0", "rank 1", "what");
    for (int f = 0; f < FIGURES; f++) {
        const char *format = strcmp(figures[f].unit, "count") == 0 ? " %12.0f" : " %12.3f";
        printf(" %-16s %6s", figures[f].name, figures[f].unit);
        for (int k = 0; k < 2; k++) {
            if (isnan(ranks[k][f])) {
                printf(" %12s", "-");
            } else {
                printf(format, ranks[k][f]);
            }
        }
        printf("  %s\n", figures[f].what);
    }
    /* A figure a rank has none of (another plugin's init split, NAN) has no CSV line. */
    printf("csv,rank,figure,value,unit\n");
    for (int k = 0; k < 2; k++) {
        for (int f = 0; f < FIGURES; f++) {
            if (!isnan(ranks[k][f])) {
                printf("csv,%d,%s,%.4f,%s\n", k, figures[f].name, ranks[k][f], figures[f].unit);
            }
        }
    }
}

static int run_rank(struct rank *r, long cold, long tail, long bootstrap_ms, unsigned hold) {
    driver_side = r->rank == 0 ? "rank 0" : "rank 1";
    long trips = cold + tail + 1; /* rank 1 times trips - 1 */
    r->samples = calloc((size_t)trips, sizeof r->samples[0]);
    if (r->samples == NULL) {
        fail("the driver's samples allocated");
    }
    for (int f = 0; f < FIGURES; f++) {
        r->v[f] = -1;
    }
    sample_process(r, F_RSS_BEFORE, F_THREADS_BEFORE);
    start(r);
    if (bootstrap_ms > 0) {
        struct timespec pause = {.tv_sec = bootstrap_ms / 1000, .tv_nsec = (bootstrap_ms % 1000) * 1000000L};
        while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
        }
    }
    connect_ranks(r);
    pingpong(r, trips);
    check(r->rbuf[0] == 0x5A && r->rbuf[SIZE - 1] == 0x5A, "8 B arrived intact");
    latencies(r, cold, tail);
    memory_at_end(r);
    if (r->rank == 1) {
        if (write(r->sock, r->v, sizeof r->v) != (ssize_t)sizeof r->v) {
            fail("figures sent to rank 0");
        }
    } else {
        double theirs[FIGURES];
        for (size_t got = 0; got < sizeof theirs;) {
            ssize_t n = read(r->sock, (char *)theirs + got, sizeof theirs - got);
            if (n <= 0) {
                fail("rank 1's figures received");
            }
            got += (size_t)n;
        }
        const double *ranks[2] = {r->v, theirs};
        print(ranks, cold, tail);
    }
    if (hold > 0) {
        printf("%s: pid %d holds for %u s\n", driver_side, (int)getpid(), hold);
        fflush(stdout);
        sleep(hold);
    }
    return driver_failed == 0 ? 0 : 1;
}

/* A count option's value: a whole number from 1 to most, or -1. */
static long count_of(const char *text, long most) {
    char *end = NULL;
    errno = 0;
    long n = text == NULL ? -1 : strtol(text, &end, 10);
    return errno != 0 || end == text || *end != '\0' || n < 1 || n > most ? -1 : n;
}

int run_startup(int argc, char **argv) {
    long cold = 200, tail = 100000, hold = 0, bootstrap = 0;
    for (int i = 0; i < argc; i += 2) {
        long *option = strcmp(argv[i], "--cold") == 0 ? &cold : strcmp(argv[i], "--tail") == 0 ? &tail
                       : strcmp(argv[i], "--hold") == 0 ? &hold : strcmp(argv[i], "--bootstrap") == 0 ? &bootstrap
                       : NULL;
        if (option == NULL || (*option = count_of(i + 1 < argc ? argv[i + 1] : NULL, 100000000)) < 0) {
            fprintf(stderr, "startup: --cold N, --tail N (round trips, at least 1), --bootstrap MS and --hold SECONDS:"
                    " not %s %s\n",
                    argv[i], i + 1 < argc ? argv[i + 1] : "");
            return 2;
        }
    }
    int socks[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks) != 0) {
        fprintf(stderr, "socketpair: %s\n", strerror(errno));
        return 1;
    }
    /* Ten minutes and a millisecond a round trip at most, and the hold. */
    unsigned bound = 600 + (unsigned)((cold + tail) / 1000) + (unsigned)(bootstrap / 1000) + (unsigned)hold;
    fflush(NULL); /* the child exits through exit(): nothing buffered here may be written twice */
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "fork: %s\n", strerror(errno));
        return 1;
    }
    struct rank r = {.rank = child == 0, .sock = socks[child == 0]};
    close(socks[child != 0]);
    alarm(bound);
    if (child == 0) {
        /* exit(), not _exit(): the library's exit handler removes the child's /dev/shm names. */
        exit(run_rank(&r, cold, tail, bootstrap, (unsigned)hold));
    }
    int status = run_rank(&r, cold, tail, bootstrap, (unsigned)hold);
    int child_status = 0;
    waitpid(child, &child_status, 0);
    return status == 0 && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0 ? 0 : 1;
}
