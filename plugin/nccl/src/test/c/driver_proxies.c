/*
 * nccl_driver proxies [ROUNDS]: NCCL's proxy thread of a communicator, which makes the
 * communicator's connections and ends with it (ncclCommDestroy). ROUNDS times (12 unless given, 3
 * at least), in one process, a new thread listens, connects to itself and accepts, registers a
 * buffer on each side, moves one verified message, deregisters, closes and ends. The process's open
 * files, counted in each round once connected, do not grow with the rounds: the endpoint a thread
 * leaves is closed when the next thread opens its own. After the last round the watchdog closes
 * the last one: the open files drop below that count within 10 s (times the tests' time factor).
 * Run over tcp: there an endpoint holds sockets.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

#define PROXY_ROUNDS 12
#define PROXY_BYTES 65536

struct proxy {
    ncclNet_v12_t *net;
    void *ctx;
    int round;
    /* The process's open files once connected, or -1. */
    int files;
    int ok;
};

/* The process's open file descriptors, or -1. */
static int open_files(void) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) {
        return -1;
    }
    int n = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        n += e->d_name[0] != '.';
    }
    closedir(d);
    return n - 1; /* the listing's own */
}

/* A proxy thread's life: a connection to itself, one message, the closes. */
static void *proxy_round(void *arg) {
    struct proxy *p = arg;
    ncclNet_v12_t *net = p->net;
    static unsigned char out[PROXY_BYTES], in[PROXY_BYTES];
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    void *listen = NULL, *send = NULL, *recv = NULL, *smr = NULL, *rmr = NULL;
    p->ok = 0;
    p->files = -1;
    if (net->listen(p->ctx, 0, handle, &listen) != ncclSuccess) {
        return NULL;
    }
    if (connect_self(net, p->ctx, handle, listen, &send, &recv) &&
        net->regMr(send, out, PROXY_BYTES, NCCL_PTR_HOST, &smr) == ncclSuccess &&
        net->regMr(recv, in, PROXY_BYTES, NCCL_PTR_HOST, &rmr) == ncclSuccess) {
        p->files = open_files();
        fill_pattern(out, PROXY_BYTES, (unsigned)p->round);
        memset(in, EMPTY_BYTE, PROXY_BYTES);
        p->ok = self_message(net, send, recv, smr, rmr, out, in, PROXY_BYTES, PROXY_BYTES, p->round);
    }
    p->ok &= smr == NULL || net->deregMr(send, smr) == ncclSuccess;
    p->ok &= rmr == NULL || net->deregMr(recv, rmr) == ncclSuccess;
    p->ok &= send == NULL || net->closeSend(send) == ncclSuccess;
    p->ok &= recv == NULL || net->closeRecv(recv) == ncclSuccess;
    p->ok &= net->closeListen(listen) == ncclSuccess;
    return NULL;
}

int run_proxies(int argc, char **argv) {
    driver_side = "proxies";
    int rounds = argc >= 1 ? atoi(argv[0]) : PROXY_ROUNDS;
    if (rounds < 3) {
        fprintf(stderr, "proxies: ROUNDS must be 3 or more, not %s\n", argv[0]);
        return 2;
    }
    void *ctx = NULL;
    ncclNet_v12_t *net = table_and_context(&ctx);
    if (net == NULL) {
        return 1;
    }
    int first = -1, last = -1;
    for (int r = 0; r < rounds; r++) {
        struct proxy p = {.net = net, .ctx = ctx, .round = r};
        pthread_t thread;
        if (pthread_create(&thread, NULL, proxy_round, &p) != 0) {
            check(0, "round %d: a thread started", r);
            break;
        }
        pthread_join(thread, NULL);
        check(p.ok, "round %d: a new thread connected, moved %d verified bytes and closed", r, PROXY_BYTES);
        /* Round 0 opened the device: from round 1 on, each round has the same to open. */
        if (r == 1) {
            first = p.files;
        }
        last = p.files;
    }
    check(first > 0 && last <= first, "open files once connected do not grow with the threads that ended:"
          " %d in round 1, %d in round %d", first, last, rounds - 1);
    double deadline = now_seconds() + 10 * time_factor();
    int files = open_files();
    while (files >= last && now_seconds() < deadline) {
        usleep(20000);
        files = open_files();
    }
    check(files >= 0 && files < last, "the last thread's endpoint closed without another thread: %d open files,"
          " %d while it was connected", files, last);
    check(net->finalize(ctx) == ncclSuccess, "finalize");
    printf("proxies: %d checks passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}
