/*
 * nccl_driver fork: a host that forks once the library runs. The parent inits and listens; the
 * child it forks calls devices() and init(), each refused with ncclSystemError at once (the JVM's
 * threads stayed in the parent), and ends with exit(), which runs the library's cleanup at exit.
 * The parent's /dev/shm names are all still there (on shm; on tcp it has none), and the parent
 * connects to its listen communicator and moves a verified message.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
    ncclNet_v12_t *net = table_and_context(&ctx);
    if (net == NULL || net->listen(ctx, 0, handle, &listen) != ncclSuccess) {
        check(0, "listen");
        return 1;
    }
    int names = shm_names(getpid());
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child(net);
    }
    int status = -1;
    int waited = pid > 0 && waitpid(pid, &status, 0) == pid;
    check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the forked child's calls refused at once, and its exit() ran (status 0x%x)", (unsigned)status);
    check(names >= 0 && shm_names(getpid()) == names, "the parent's %d /dev/shm names are there after the child's"
          " exit", names);
    check(connect_and_move(net, ctx, handle, listen), "the parent connects to itself and moves %d verified bytes",
          FORK_BYTES);
    check(net->closeListen(listen) == ncclSuccess && net->finalize(ctx) == ncclSuccess, "closeListen and finalize");
    printf("fork: %d checks passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}
