/*
 * nccl_driver fork: a host that forks while the library starts and once it runs. First the parent
 * forks while another of its threads is inside the first init, creating the JVM (libjvm.so mapped,
 * init not returned); then it listens and forks again. Each child calls devices() and init(), each
 * refused with ncclSystemError at once (the JVM's threads, and the lock its start holds, stayed in
 * the parent), and ends with exit(), which runs the library's cleanup at exit. The parent's
 * /dev/shm names are all still there (on shm; on tcp it has none), and the parent connects to its
 * listen communicator and moves a verified message.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
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

/* The child: every call refused at once with ncclSystemError; exits through exit(). */
static void child(ncclNet_v12_t *net) {
    alarm(CHILD_SECONDS);
    int ndev = -1;
    void *ctx = NULL;
    int refused = net->devices(&ndev) == ncclSystemError && ndev == -1;
    refused &= net->init(&ctx, 2, comm_config(), driver_logger, NULL) == ncclSystemError;
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

/* Whether libjvm.so is mapped into this process: the first init has begun to create the JVM. */
static int jvm_mapped(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        return 0;
    }
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps) != NULL) {
        found = strstr(line, "/libjvm.so") != NULL;
    }
    fclose(maps);
    return found;
}

struct first_init {
    ncclNet_v12_t *net;
    void *ctx;
    ncclResult_t result;
    volatile int returned;
};

static void *first_init(void *arg) {
    struct first_init *f = arg;
    f->result = f->net->init(&f->ctx, 1, comm_config(), driver_logger, NULL);
    f->returned = 1;
    return NULL;
}

/*
 * The first init on a thread of its own, and a fork once the JVM's library is mapped and before
 * init has returned; the init's context, NULL when it failed.
 */
static void *init_across_a_fork(ncclNet_v12_t *net) {
    struct first_init f = {.net = net, .ctx = NULL, .result = ncclInternalError, .returned = 0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, first_init, &f) != 0) {
        check(0, "the first init's thread started");
        return NULL;
    }
    double deadline = now_seconds() + WAIT_SECONDS * time_factor();
    while (!f.returned && !jvm_mapped() && now_seconds() < deadline) {
        usleep(200);
    }
    int during = !f.returned && jvm_mapped();
    check(during, "libjvm.so mapped before the first init returned");
    if (during) {
        child_refused(net, "while the first init creates the JVM");
    }
    pthread_join(thread, NULL);
    check(f.result == ncclSuccess, "the first init, with a child forked during it, succeeded");
    return f.result == ncclSuccess ? f.ctx : NULL;
}

/* A connection of the parent to itself on listen's handle, and one verified message over it. */
static int connect_and_move(ncclNet_v12_t *net, void *ctx, unsigned char *handle, void *listen) {
    static unsigned char out[FORK_BYTES], in[FORK_BYTES];
    void *send = NULL, *recv = NULL, *smr = NULL, *rmr = NULL;
    int ok = 0;
    if (connect_self(net, ctx, handle, listen, &send, &recv) &&
        net->regMr(send, out, FORK_BYTES, NCCL_PTR_HOST, &smr) == ncclSuccess &&
        net->regMr(recv, in, FORK_BYTES, NCCL_PTR_HOST, &rmr) == ncclSuccess) {
        fill_pattern(out, FORK_BYTES, 7);
        ok = self_message(net, send, recv, smr, rmr, out, in, FORK_BYTES, FORK_BYTES, 7);
    }
    ok &= smr == NULL || net->deregMr(send, smr) == ncclSuccess;
    ok &= rmr == NULL || net->deregMr(recv, rmr) == ncclSuccess;
    ok &= send == NULL || net->closeSend(send) == ncclSuccess;
    ok &= recv == NULL || net->closeRecv(recv) == ncclSuccess;
    return ok;
}

int run_fork(void) {
    driver_side = "fork";
    void *ctx = NULL, *listen = NULL;
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    ncclNet_v12_t *net = load_table();
    ctx = net == NULL ? NULL : init_across_a_fork(net);
    if (ctx == NULL || net->listen(ctx, 0, handle, &listen) != ncclSuccess) {
        check(0, "listen");
        return 1;
    }
    int names = shm_names(getpid());
    child_refused(net, "once the library runs");
    check(names >= 0 && shm_names(getpid()) == names, "the parent's %d /dev/shm names are there after the child's"
          " exit", names);
    check(connect_and_move(net, ctx, handle, listen), "the parent connects to itself and moves %d verified bytes",
          FORK_BYTES);
    check(net->closeListen(listen) == ncclSuccess && net->finalize(ctx) == ncclSuccess, "closeListen and finalize");
    printf("fork: %d checks passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}
