/*
 * NCCL's threads and a dead peer, through the table:
 *   threads  each side opens four communicators on its main thread (NCCL's service thread), then
 *            four threads each drive one (NCCL's proxy threads): sizes 8 B - 1 MiB verified; the
 *            threads end and four new ones go on with the same communicators, four rounds; the
 *            JVM's live threads do not grow with the threads that ended
 *   kill     a receiver with two senders; one is killed with SIGKILL while the receiver waits on
 *            four receives from it: each fails with an error within 5 s (times the tests' time
 *            factor: slack, as on tcp the kill closes the socket at once), and the other sender's
 *            communicator keeps moving verified data (tcp: on shm a peer killed inside a send blocks
 *            other senders to its process in libfabric 1.17)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

#define COMMS 4
#define ROUNDS 4
#define REGION (2 * MiB)

struct worker {
    struct side *side;
    void *comm;
    void *mr;
    int index;
    int round;
    int ok;
};

/* One communicator's sizes, on its own region of the buffer, from whatever thread runs it. */
static void *drive(void *arg) {
    struct worker *w = arg;
    struct side *s = w->side;
    static const size_t sizes[] = {8, 100, 4096, 65536, 1048576};
    unsigned char *region = data_of(s) + (size_t)w->index * REGION;
    w->ok = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned seed = (unsigned)(w->round * 1000 + w->index * 10 + (int)i);
        int tag = w->index;
        void *req = NULL;
        int got = -1;
        double deadline = now_seconds() + 60;
        if (s->sender) {
            fill_pattern(region, sizes[i], seed);
            while (s->net->isend(w->comm, region, sizes[i], tag, w->mr, NULL, &req) == ncclSuccess && req == NULL &&
                   now_seconds() < deadline) {
            }
            w->ok &= req != NULL && await_request(s->net, req, &got, 60) == ncclSuccess;
        } else {
            void *data = region;
            size_t capacity = REGION;
            while (s->net->irecv(w->comm, 1, &data, &capacity, &tag, &w->mr, NULL, &req) == ncclSuccess &&
                   req == NULL && now_seconds() < deadline) {
            }
            w->ok &= req != NULL && await_request(s->net, req, &got, 60) == ncclSuccess && got == (int)sizes[i] &&
                     has_pattern(region, sizes[i], seed);
        }
    }
    return NULL;
}

static void *threads_side(void *arg) {
    struct side *s = arg;
    if (start_side(s) != 0) {
        return NULL;
    }
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    exchange_handle(s, handle);
    struct worker w[COMMS];
    for (int i = 0; i < COMMS; i++) {
        w[i] = (struct worker){.side = s, .index = i};
        w[i].comm = connect_comm(s, handle);
        w[i].mr = w[i].comm ? reg(s, w[i].comm) : NULL;
    }
    int threads_after[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t threads[COMMS];
        for (int i = 0; i < COMMS; i++) {
            w[i].round = round;
            check(pthread_create(&threads[i], NULL, drive, &w[i]) == 0, "round %d: thread %d started", round, i);
        }
        for (int i = 0; i < COMMS; i++) {
            pthread_join(threads[i], NULL);
            check(w[i].ok, "round %d: thread %d drove communicator %d, sizes 8 B - 1 MiB verified", round, i, i);
        }
        /* A spare context's finalize logs the JVM's live threads. */
        void *spare = NULL;
        forget_java_readings();
        check(s->net->init(&spare, 99, NULL, driver_logger, NULL) == ncclSuccess &&
                  s->net->finalize(spare) == ncclSuccess, "round %d: a spare context's init and finalize", round);
        threads_after[round] = live_jvm_threads();
    }
    check(threads_after[0] > 0 && threads_after[ROUNDS - 1] > 0 && threads_after[ROUNDS - 1] <= threads_after[0] + 1,
          "threads that ended left no JVM thread behind: %d live after round 0, %d after round %d", threads_after[0],
          threads_after[ROUNDS - 1], ROUNDS - 1);
    rendezvous(s, "threads done");
    for (int i = 0; i < COMMS; i++) {
        check(s->net->deregMr(w[i].comm, w[i].mr) == ncclSuccess &&
                  (s->sender ? s->net->closeSend(w[i].comm) : s->net->closeRecv(w[i].comm)) == ncclSuccess,
              "communicator %d deregistered and closed on the main thread", i);
    }
    return NULL;
}

int run_threads(void) {
    return run_two(threads_side, 0);
}

/* A sender of the kill run: connects, then moves 64 KiB messages until told to stop (or is killed). */
static int kill_sender(int sock, int index) {
    struct side s = {.sock = sock, .sender = 1};
    driver_side = index == 0 ? "victim" : "survivor";
    s.buf = malloc(BUFFER_BYTES);
    if (s.buf == NULL || (reset_buffer(&s), start_side(&s)) != 0) {
        return 1;
    }
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    check(read(sock, handle, sizeof handle) == (ssize_t)sizeof handle, "handle received");
    void *comm = connect_comm(&s, handle);
    void *mr = reg(&s, comm);
    rendezvous(&s, "connected");
    if (index == 0) {
        pause(); /* the victim waits to be killed */
        return 1;
    }
    for (int i = 0; i < 200; i++) {
        fill_pattern(data_of(&s), 65536, (unsigned)i);
        void *req = post_send(&s, comm, 0, 65536, 0, mr);
        if (req == NULL || await_request(s.net, req, NULL, 60) != ncclSuccess) {
            check(0, "message %d sent", i);
            break;
        }
    }
    rendezvous(&s, "done");
    printf("survivor: %d passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}

int run_kill(void) {
    int socks[2][2];
    pid_t pids[2];
    for (int i = 0; i < 2; i++) {
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks[i]) != 0) {
            return 1;
        }
        pids[i] = fork();
        if (pids[i] < 0) {
            return 1;
        }
        if (pids[i] == 0) {
            close(socks[i][0]);
            alarm(240);
            _exit(kill_sender(socks[i][1], i));
        }
        close(socks[i][1]);
    }
    driver_side = "recv";
    struct side s = {.sock = socks[0][0]};
    s.buf = malloc(BUFFER_BYTES);
    if (s.buf == NULL || (reset_buffer(&s), start_side(&s)) != 0) {
        return 1;
    }
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    check(s.net->listen(s.ctx, 0, handle, &s.listen_comm) == ncclSuccess, "listen");
    void *comms[2], *mrs[2];
    for (int i = 0; i < 2; i++) {
        s.sock = socks[i][0];
        check(write(s.sock, handle, sizeof handle) == (ssize_t)sizeof handle, "handle sent to sender %d", i);
        comms[i] = connect_comm(&s, handle);
        mrs[i] = comms[i] ? reg(&s, comms[i]) : NULL;
        rendezvous(&s, "connected");
    }
    /* Four receives from the victim, which sends nothing; then it is killed. */
    void *waiting[4];
    for (int i = 0; i < 4; i++) {
        size_t offset = (size_t)(4 + i) * MiB, capacity = MiB;
        int tag = 9;
        waiting[i] = post_recv(&s, comms[0], 1, &offset, &capacity, &tag, mrs[0], NULL);
    }
    check(kill(pids[0], SIGKILL) == 0, "the victim (pid %d) killed with SIGKILL", (int)pids[0]);
    double killed = now_seconds();
    int failed[4] = {0, 0, 0, 0}, received = 0, all_failed = 0;
    double failed_after = -1;
    while (now_seconds() - killed < 30 && (!all_failed || received < 200)) {
        all_failed = 1;
        for (int i = 0; i < 4; i++) {
            if (!failed[i]) {
                int done = 0;
                ncclResult_t r = s.net->test(waiting[i], &done, NULL);
                failed[i] = r != ncclSuccess;
                if (done) {
                    check(0, "a receive from the killed peer completed");
                    failed[i] = 1;
                }
            }
            all_failed &= failed[i];
        }
        if (all_failed && failed_after < 0) {
            failed_after = now_seconds() - killed;
        }
        if (received < 200) {
            size_t offset = 0, capacity = 65536;
            int tag = 0, got = -1;
            void *req = post_recv(&s, comms[1], 1, &offset, &capacity, &tag, mrs[1], NULL);
            if (req == NULL || await_request(s.net, req, &got, 60) != ncclSuccess || got != 65536 ||
                !has_pattern(data_of(&s), 65536, (unsigned)received)) {
                check(0, "message %d from the survivor", received);
                break;
            }
            received++;
        }
    }
    double bound = 5.0 * time_factor(); /* slack: on tcp the kill closes the socket at once */
    check(all_failed && failed_after >= 0 && failed_after < bound,
          "every receive from the killed peer failed, within %.2f s of the kill (bound %.0f s)", failed_after, bound);
    check(received == 200, "the survivor's communicator moved %d verified messages meanwhile", received);
    s.sock = socks[1][0];
    rendezvous(&s, "done");
    int status = 0;
    waitpid(pids[0], &status, 0);
    check(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the victim died of SIGKILL");
    waitpid(pids[1], &status, 0);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the survivor passed");
    printf("recv: %d passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}
