/*
 * nccl_driver layout        the C declarations against NCCL 2.30's layout, and the loaded table
 * nccl_driver init          one init: exits 0 when it succeeded, 10 + its ncclResult_t when not
 * nccl_driver crossing      ns per call of the cheapest entry (devices), the crossing's own cost
 * nccl_driver bench [latency|bandwidth|drained] [SIZE ...]
 *                           ofinet-perf's measurements through the table (driver_bench.c); drained:
 *                           bandwidth in windows of 16 posted, tested oldest first, acknowledged
 * nccl_driver startup [--cold N] [--tail N] [--bootstrap MS] [--hold SECONDS]
 *                           what a rank pays for ofinet, from dlopen to its last round trip, two
 *                           processes (driver_startup.c)
 * nccl_driver threads | kill  NCCL's threads, a peer killed (driver_threads.c)
 * nccl_driver versions | reload | teardown | exit
 *                           NCCL's lifecycle (driver_lifecycle.c)
 * nccl_driver tags [SCENARIO ...]
 *                           sends meeting receive buffers by tag and ordinal in interleaved orders,
 *                           two processes as pair (driver_tags.c); all four scenarios, or those named
 * nccl_driver train [ROUNDS]
 *                           NCCL's calls in one process over a connection to itself, ROUNDS messages
 *                           of each size, then the JVM ended through System.exit (driver_train.c)
 * nccl_driver proxies [ROUNDS]
 *                           NCCL's proxy thread per communicator: each round a new thread connects,
 *                           moves a message, closes and ends; its endpoint closes (driver_proxies.c)
 * nccl_driver fork          a host that forks once the library runs: the child's calls refused, its
 *                           exit() leaves the parent's /dev/shm names (driver_fork.c)
 * nccl_driver hostjvm       a host that runs a JVM of its own from a libjvm it loaded privately: the
 *                           library runs in it (driver_host.c)
 * nccl_driver pair [--thread]
 *                           two processes (this one receives, a forked child sends) through the
 *                           table over the provider OFINET_LAYOUT names; with --thread each side
 *                           runs on a second thread instead of its process's primordial one
 * nccl_driver jitwatch      the bench's watch on the JVM's compilers against a stand-in compiler
 *                           thread starved at SCHED_IDLE, then blocked; no library (driver_jit.c)
 * Every other mode loads the library NCCL_NET_PLUGIN names, as NCCL opens it (ofinet when it is unset); a
 * plugin other than ofinet runs bench and startup without their readings of ofinet's JVM.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"

int driver_passed;
int driver_failed;
const char *driver_side = "driver";
static __thread char warning[2048];
static char last_warning_copy[2048];
static int init_line_seen;
static int jvm_threads = -1;
static __thread long long thread_allocated = -1;
static char start_copy[2048];
static char plugin_init_copy[2048];

const char *start_line(void) {
    return start_copy;
}

const char *plugin_init_line(void) {
    return plugin_init_copy;
}

long long java_allocated_on_this_thread(void) {
    return thread_allocated;
}

void forget_java_readings(void) {
    thread_allocated = -1;
    __atomic_store_n(&jvm_threads, -1, __ATOMIC_RELEASE);
}

int live_jvm_threads(void) {
    return __atomic_load_n(&jvm_threads, __ATOMIC_ACQUIRE);
}

int saw_init_line(void) {
    return __atomic_load_n(&init_line_seen, __ATOMIC_ACQUIRE);
}

void check(int condition, const char *fmt, ...) {
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    printf("%s: %s: %s\n", condition ? "ok" : "FAILED", driver_side, text);
    fflush(stdout);
    if (condition) {
        __atomic_add_fetch(&driver_passed, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_add_fetch(&driver_failed, 1, __ATOMIC_RELAXED);
    }
}

void driver_logger(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(warning, sizeof warning, fmt, args);
    va_end(args);
    printf("  [nccl log level %d flags 0x%lx %s:%d] %s\n", level, flags, file, line, warning);
    fflush(stdout);
    if (level == NCCL_LOG_WARN) {
        memcpy(last_warning_copy, warning, sizeof last_warning_copy);
    }
    const char *live = strstr(warning, " live");
    const char *threads = strstr(warning, "JVM threads, ");
    if (threads != NULL && live != NULL) {
        __atomic_store_n(&jvm_threads, atoi(threads + strlen("JVM threads, ")), __ATOMIC_RELEASE);
    }
    const char *allocated = strstr(warning, "this thread allocated ");
    if (allocated != NULL) {
        thread_allocated = atoll(allocated + strlen("this thread allocated "));
    }
    if (strncmp(warning, "init: ofinet started in ", 24) == 0) {
        memcpy(start_copy, warning, sizeof start_copy);
    }
    if (strstr(warning, "the plugin's init") != NULL) {
        memcpy(plugin_init_copy, warning, sizeof plugin_init_copy);
    }
    /* A device's rails, not the line of the warm-up's own device (docs/NCCL.md, "The warm-up"). */
    if (level == NCCL_LOG_INFO && (flags & NCCL_NET) && strstr(warning, "data rails") != NULL &&
        strncmp(warning, "device warm-up:", 15) != 0) {
        __atomic_store_n(&init_line_seen, 1, __ATOMIC_RELEASE);
    }
}

const char *last_warning(void) {
    return last_warning_copy;
}

void *open_plugin(void) {
    /*
     * As NCCL opens NCCL_NET_PLUGIN: the name as written (a path, or a file name the loader
     * searches), then libnccl-net-<name>.so; ofinet when it is unset, so that another plugin (the
     * C++ plugin, as docs/PERFORMANCE.md measures it) runs under the same driver by path.
     */
    const char *name = getenv("NCCL_NET_PLUGIN");
    if (name == NULL || name[0] == '\0') {
        name = "ofinet";
    }
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != NULL) {
        return lib;
    }
    char first[1024];
    snprintf(first, sizeof first, "%s", dlerror());
    char file[PATH_MAX];
    if (snprintf(file, sizeof file, "libnccl-net-%s.so", name) >= (int)sizeof file) {
        check(0, "dlopen NCCL_NET_PLUGIN=%s: as written (%s); too long a name for libnccl-net-<name>.so", name,
              first);
        return NULL;
    }
    lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        check(0, "dlopen NCCL_NET_PLUGIN=%s: as written (%s), as %s through LD_LIBRARY_PATH (%s)", name, first, file,
              dlerror());
    }
    return lib;
}

ncclNet_v12_t *load_table(void) {
    void *lib = open_plugin();
    if (lib == NULL) {
        return NULL;
    }
    ncclNet_v12_t *net = (ncclNet_v12_t *)dlsym(lib, "ncclNetPlugin_v12");
    check(net != NULL, "dlsym ncclNetPlugin_v12");
    return net;
}

int is_ofinet(const ncclNet_v12_t *net) {
    return net != NULL && net->name != NULL && strcmp(net->name, "ofinet") == 0;
}

const char *table_name(const ncclNet_v12_t *net) {
    return net != NULL && net->name != NULL ? net->name : "(none)";
}

ncclNetCommConfig_v12_t *comm_config(void) {
    static ncclNetCommConfig_v12_t config = {.trafficClass = NCCL_NET_TRAFFIC_CLASS_UNDEF};
    return &config;
}

double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

double time_factor(void) {
    const char *text = getenv("NCCL_DRIVER_TIME_FACTOR");
    if (text == NULL || text[0] == '\0') {
        return 1;
    }
    char *end = NULL;
    double f = strtod(text, &end);
    if (end == text || *end != '\0' || !(f >= 1 && f <= 100)) {
        check(0, "NCCL_DRIVER_TIME_FACTOR must be a number from 1 to 100, not \"%s\": 1 taken", text);
        return 1;
    }
    return f;
}

int idle_poll(struct idle_polls *w) {
    if (++w->idle < IDLE_POLLS) {
        return 1;
    }
    double now = now_seconds();
    if (w->deadline == 0) {
        w->deadline = now + w->seconds;
    } else if (now > w->deadline) {
        return 0;
    }
    sched_yield();
    return 1;
}

ncclResult_t await_request(ncclNet_v12_t *net, void *request, int *sizes, double seconds) {
    struct idle_polls wait = {.seconds = seconds};
    for (;;) {
        int done = 0;
        ncclResult_t r = net->test(request, &done, sizes);
        if (r != ncclSuccess || done) {
            return r;
        }
        if (!idle_poll(&wait)) {
            printf("  (a request did not complete in %.0f s)\n", seconds);
            return ncclSystemError;
        }
    }
}

void fill_pattern(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)(i * 131u + seed * 7u + (i >> 9));
    }
}

int has_pattern(const unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) {
        if (p[i] != (unsigned char)(i * 131u + seed * 7u + (i >> 9))) {
            printf("  (byte %zu of %zu differs)\n", i, n);
            return 0;
        }
    }
    return 1;
}

/* One init and what it logged; a second init must fail or succeed the same way. */
static int run_init(void) {
    driver_side = "init";
    ncclNet_v12_t *net = load_table();
    if (net == NULL) {
        return 1;
    }
    void *ctx = NULL;
    ncclResult_t first = net->init(&ctx, 1, comm_config(), driver_logger, NULL);
    printf("init: result %d, warning \"%s\"\n", first, last_warning());
    ncclResult_t second = net->init(&ctx, 2, comm_config(), driver_logger, NULL);
    check(second == first, "a second init gives the same result (%d)", second);
    return first == ncclSuccess ? 0 : 10 + (int)first;
}

/*
 * The crossing's cost, in one process over a connection to itself: ns per call of devices() (an
 * upcall into Java that does almost nothing there), of test() on a receive that nothing will
 * complete (the crossing, the request's lookup and one progress step), and per call of an 8-byte
 * isend/irecv pair tested to done. CrossingJava (src/test/java) makes the same calls from Java.
 */
static int run_crossing(void) {
    driver_side = "crossing";
    ncclNet_v12_t *net = load_table();
    void *ctx = NULL;
    if (net == NULL || net->init(&ctx, 1, NULL, driver_logger, NULL) != ncclSuccess) {
        check(0, "init");
        return 1;
    }
    int ndev = 0;
    for (int round = 0; round < 5; round++) {
        const int calls = 2000000;
        double start = now_seconds();
        for (int i = 0; i < calls; i++) {
            if (net->devices(&ndev) != ncclSuccess) {
                check(0, "devices");
                return 1;
            }
        }
        double ns = (now_seconds() - start) * 1e9 / calls;
        printf("crossing: round %d: %.1f ns per devices() call through the table\n", round, ns);
    }
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    void *listen = NULL, *sends[2] = {NULL, NULL}, *recvs[2] = {NULL, NULL}, *smrs[2], *rmrs[2];
    static unsigned char buf[8192];
    if (net->listen(ctx, 0, handle, &listen) != ncclSuccess) {
        check(0, "listen");
        return 1;
    }
    /* Two connections to itself: one keeps a receive waiting, the other moves the pairs. */
    for (int c = 0; c < 2; c++) {
        double deadline = now_seconds() + 30;
        while ((sends[c] == NULL || recvs[c] == NULL) && now_seconds() < deadline) {
            if ((sends[c] == NULL && net->connect(ctx, 0, handle, &sends[c], NULL) != ncclSuccess) ||
                (recvs[c] == NULL && net->accept(listen, &recvs[c], NULL) != ncclSuccess)) {
                break;
            }
        }
        if (sends[c] == NULL || recvs[c] == NULL ||
            net->regMr(sends[c], buf, 4096, NCCL_PTR_HOST, &smrs[c]) != ncclSuccess ||
            net->regMr(recvs[c], buf + 4096, 4096, NCCL_PTR_HOST, &rmrs[c]) != ncclSuccess) {
            check(0, "a connection to itself");
            return 1;
        }
    }
    void *recv = recvs[0], *rmr = rmrs[0];
    void *data = buf + 4096, *waiting = NULL;
    size_t size = 8;
    int tag = 99, done = 0;
    while (net->irecv(recv, 1, &data, &size, &tag, &rmr, NULL, &waiting) == ncclSuccess && waiting == NULL) {
    }
    for (int round = 0; round < 5; round++) {
        const int calls = 500000;
        double start = now_seconds();
        for (int i = 0; i < calls; i++) {
            if (net->test(waiting, &done, NULL) != ncclSuccess || done) {
                check(0, "test of a receive that nothing completes");
                return 1;
            }
        }
        printf("crossing: round %d: %.1f ns per test() of a request not done\n", round,
               (now_seconds() - start) * 1e9 / calls);
    }
    void *send = sends[1], *smr = smrs[1];
    recv = recvs[1];
    rmr = rmrs[1];
    for (int round = 0; round < 5; round++) {
        const int pairs = 50000;
        long long calls = 0;
        double start = now_seconds();
        for (int i = 0; i < pairs; i++) {
            void *r = NULL, *s = NULL;
            int rdone = 0, sdone = 0, rtag = 1;
            void *rdata = buf + 4096 + 16;
            size_t cap = 8;
            while (r == NULL) {
                net->irecv(recv, 1, &rdata, &cap, &rtag, &rmr, NULL, &r);
                calls++;
            }
            while (s == NULL) {
                net->isend(send, buf, 8, 1, smr, NULL, &s);
                calls++;
            }
            while (!sdone || !rdone) {
                if (!sdone && net->test(s, &sdone, NULL) != ncclSuccess) {
                    check(0, "a send to itself");
                    return 1;
                }
                if (!rdone && net->test(r, &rdone, NULL) != ncclSuccess) {
                    check(0, "a receive from itself");
                    return 1;
                }
                calls += 2;
            }
        }
        double seconds = now_seconds() - start;
        printf("crossing: round %d: %.1f ns per call of an 8-byte isend/irecv pair tested to done (%.2f calls a pair,"
               " %.2f us a pair)\n", round, seconds * 1e9 / calls, (double)calls / pairs, seconds * 1e6 / pairs);
    }
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && strcmp(argv[1], "layout") == 0) {
        return run_layout();
    }
    if (argc >= 2 && strcmp(argv[1], "bench") == 0) {
        return run_bench(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "threads") == 0) {
        return run_threads();
    }
    if (argc >= 2 && strcmp(argv[1], "kill") == 0) {
        return run_kill();
    }
    if (argc >= 2 && strcmp(argv[1], "versions") == 0) {
        return run_versions();
    }
    if (argc >= 2 && strcmp(argv[1], "reload") == 0) {
        return run_reload();
    }
    if (argc >= 2 && strcmp(argv[1], "teardown") == 0) {
        return run_teardown();
    }
    if (argc >= 2 && strcmp(argv[1], "exit") == 0) {
        return run_exit();
    }
    if (argc >= 2 && strcmp(argv[1], "crossing") == 0) {
        return run_crossing();
    }
    if (argc >= 2 && strcmp(argv[1], "init") == 0) {
        return run_init();
    }
    if (argc >= 2 && strcmp(argv[1], "startup") == 0) {
        return run_startup(argc - 2, argv + 2);
    }
    if (argc >= 2 && strcmp(argv[1], "tags") == 0) {
        return run_tags(argc - 2, argv + 2);
    }
    if (argc >= 2 && strcmp(argv[1], "train") == 0) {
        return run_train(argc - 2, argv + 2);
    }
    if (argc >= 2 && strcmp(argv[1], "proxies") == 0) {
        return run_proxies(argc - 2, argv + 2);
    }
    if (argc >= 2 && strcmp(argv[1], "fork") == 0) {
        return run_fork();
    }
    if (argc >= 2 && strcmp(argv[1], "hostjvm") == 0) {
        return run_host_jvm();
    }
    if (argc >= 2 && strcmp(argv[1], "jitwatch") == 0) {
        return jit_watch_check();
    }
    if (argc >= 2 && strcmp(argv[1], "pair") == 0) {
        return run_pair(argc >= 3 && strcmp(argv[2], "--thread") == 0);
    }
    fprintf(stderr, "usage: %s layout | init | crossing | bench [latency|bandwidth|drained] [SIZE...] | pair [--thread] |"
            " startup [--cold N] [--tail N] [--bootstrap MS] [--hold SECONDS] | tags [SCENARIO...] | train [ROUNDS] |"
            " proxies [ROUNDS] | fork | hostjvm | threads | kill | versions | reload | teardown | exit | jitwatch\n", argv[0]);
    return 2;
}
