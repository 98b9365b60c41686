/*
 * nccl_driver fork: a host that forks while the library starts and once it runs. First the parent
 * forks while another of its threads is inside the first init, starting the JVM (held there by the
 * logger, which the start calls); that init is the v10 table's, whose contexts are made under a
 * lock of their own. Then the parent listens and forks again. Each child calls devices() and
 * init() of the v12 table and init() of the v10 table, each refused with ncclSystemError at once
 * (the JVM's threads, and the locks its start holds, stayed in the parent), and ends with exit(),
 * which runs the library's cleanup at exit. The parent's
 * /dev/shm names are all still there (on shm; on tcp it has none), and the parent connects to its
 * listen communicator and moves a verified message.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

#define FORK_BYTES 8192
/* Seconds the child may take before it counts as hung. */
#define CHILD_SECONDS 30

/* The /dev/shm names of process pid ("<pid>:..."); -1 when /dev/shm cannot be read. */
static int shm_names(pid_t pid) {
    char prefix[32];
    int len = snprintf(prefix, sizeof prefix, "%d:", (int)pid);
    DIR *d = opendir("/dev/shm");
    if (d == NULL) {
        return -1;
    }
    int n = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        n += strncmp(e->d_name, prefix, (size_t)len) == 0;
    }
    closedir(d);
    return n;
}

/* The v10 table, whose init the first init is (NULL when it could not be found). */
static ncclNet_v10_t *v10;

/* The child: every call refused at once with ncclSystemError; exits through exit(). */
static void child(ncclNet_v12_t *net) {
    alarm(CHILD_SECONDS);
    int ndev = -1;
    void *ctx = NULL;
    int refused = net->devices(&ndev) == ncclSystemError && ndev == -1;
    refused &= net->init(&ctx, 2, comm_config(), driver_logger, NULL) == ncclSystemError;
    refused &= v10->init(driver_logger, NULL) == ncclSystemError;
    printf("fork: child %d: %s\n", (int)getpid(), refused ? "calls refused" : "a call was not refused");
    fflush(stdout);
    exit(refused ? 0 : 1);
}

/* Forks a child that runs child(net); whether it exited 0 (a child that hangs is ended by its alarm). */
static int child_refused(ncclNet_v12_t *net, const char *when) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child(net);
    }
    int status = -1;
    int waited = pid > 0 && waitpid(pid, &status, 0) == pid;
    check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a child forked %s: its calls refused at once, and its exit() ran (status 0x%x)", when, (unsigned)status);
    return waited && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * The JVM's start, seen through the logger: the start logs "created a Java ..." on its own thread
 * while the first init holds the lock of the start. The logger then waits until the main thread
 * has forked, so that the child is forked inside the start, whatever the machine's load.
 */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_changed = PTHREAD_COND_INITIALIZER;
enum { START_BEFORE, START_LOGGING, START_FORKED };
static int start_state = START_BEFORE;

static void set_start_state(int state) {
    pthread_mutex_lock(&start_lock);
    start_state = state;
    pthread_cond_broadcast(&start_changed);
    pthread_mutex_unlock(&start_lock);
}

static void start_logger(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
    char text[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    driver_logger(level, flags, file, line, "%s", text);
    if (strncmp(text, "created a Java ", 15) == 0) {
        pthread_mutex_lock(&start_lock);
        start_state = START_LOGGING;
        pthread_cond_broadcast(&start_changed);
        while (start_state == START_LOGGING) {
            pthread_cond_wait(&start_changed, &start_lock);
        }
        pthread_mutex_unlock(&start_lock);
    }
}

struct first_init {
    ncclNet_v12_t *net;
    void *ctx;
    ncclResult_t result;
};

/* The first init, the v10 table's; then the v12 table's, for the context the parent goes on with. */
static void *first_init(void *arg) {
    struct first_init *f = arg;
    f->result = v10->init(start_logger, NULL);
    if (f->result == ncclSuccess) {
        f->result = f->net->init(&f->ctx, 1, comm_config(), driver_logger, NULL);
    }
    set_start_state(START_FORKED); /* a start that never logged its line lets the main thread go on */
    return NULL;
}

/*
 * The first init on a thread of its own, and a fork while the JVM's start holds its lock; the
 * init's context, NULL when it failed.
 */
static void *init_across_a_fork(ncclNet_v12_t *net) {
    struct first_init f = {.net = net, .ctx = NULL, .result = ncclInternalError};
    pthread_t thread;
    if (pthread_create(&thread, NULL, first_init, &f) != 0) {
        check(0, "the first init's thread started");
        return NULL;
    }
    pthread_mutex_lock(&start_lock);
    while (start_state == START_BEFORE) {
        pthread_cond_wait(&start_changed, &start_lock);
    }
    int during = start_state == START_LOGGING;
    pthread_mutex_unlock(&start_lock);
    check(during, "the first init's start of the JVM logged its line, holding the start's lock");
    if (during) {
        child_refused(net, "while the first init starts the JVM");
    }
    set_start_state(START_FORKED);
    pthread_join(thread, NULL);
    check(f.result == ncclSuccess, "the first init, with a child forked during it, succeeded");
    return f.result == ncclSuccess ? f.ctx : NULL;
}

int run_fork(void) {
    driver_side = "fork";
    void *ctx = NULL, *listen = NULL;
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    ncclNet_v12_t *net = load_table();
    void *lib = net == NULL ? NULL : open_plugin();
    v10 = lib == NULL ? NULL : dlsym(lib, "ncclNetPlugin_v10");
    check(v10 != NULL, "dlsym ncclNetPlugin_v10");
    ctx = v10 == NULL ? NULL : init_across_a_fork(net);
    if (ctx == NULL || net->listen(ctx, 0, handle, &listen) != ncclSuccess) {
        check(0, "listen");
        return 1;
    }
    int names = shm_names(getpid());
    child_refused(net, "once the library runs");
    check(names >= 0 && shm_names(getpid()) == names, "the parent's %d /dev/shm names are there after the child's"
          " exit", names);
    check(self_round_trip(net, ctx, handle, listen, FORK_BYTES), "the parent connects to itself and moves %d verified bytes",
          FORK_BYTES);
    check(net->closeListen(listen) == ncclSuccess && net->finalize(ctx) == ncclSuccess, "closeListen and finalize");
    printf("fork: %d checks passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}
