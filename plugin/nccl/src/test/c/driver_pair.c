/*
 * Two processes through the table: this process receives and its forked child sends, over one
 * listen communicator and four connections:
 *   A  sizes 0 B - 8 MiB, a grouped receive with distinct tags, 32 receives and 32 x 8 sends in
 *      flight, iflush, a receive whose request NCCL preset to NCCL_NET_OPTIONAL_RECV_COMPLETION
 *   B  5 KiB into 4 KiB (eager), C  2 MiB into 1 MiB (rendezvous): the receive refused, then
 *      1 KiB more on the same communicator
 *   D  closed with requests in flight on both sides
 * plus NULL and garbage handles on both sides. Canary bytes surround every receive buffer.
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

unsigned char *data_of(struct side *s) {
    return s->buf + CANARY;
}

int canaries_intact(const unsigned char *region, size_t capacity) {
    for (size_t i = 0; i < CANARY; i++) {
        if (region[-(long)CANARY + (long)i] != CANARY_BYTE || region[capacity + i] != CANARY_BYTE) {
            return 0;
        }
    }
    return 1;
}

void reset_buffer(struct side *s) {
    memset(s->buf, CANARY_BYTE, BUFFER_BYTES);
    memset(data_of(s), EMPTY_BYTE, 8 * MiB);
}

/* Exchanges one byte with the peer: both sides reached the same point. */
void rendezvous(struct side *s, const char *what) {
    char b = 'r';
    int ok = write(s->sock, &b, 1) == 1 && read(s->sock, &b, 1) == 1;
    if (!ok) {
        check(0, "rendezvous at %s with the peer", what);
    }
}

int start_side(struct side *s) {
    s->net = load_table();
    if (s->net == NULL) {
        return -1;
    }
    return init_side(s);
}

void exchange_handle(struct side *s, unsigned char *handle) {
    if (!s->sender) {
        check(s->net->listen(s->ctx, 0, handle, &s->listen_comm) == ncclSuccess && s->listen_comm, "listen");
        check(write(s->sock, handle, NCCL_NET_HANDLE_MAXSIZE) == NCCL_NET_HANDLE_MAXSIZE, "handle sent to the peer");
    } else {
        check(read(s->sock, handle, NCCL_NET_HANDLE_MAXSIZE) == NCCL_NET_HANDLE_MAXSIZE, "handle received from the peer");
    }
}

void *connect_comm(struct side *s, const unsigned char *handle) {
    void *comm = NULL;
    double deadline = now_seconds() + WAIT_SECONDS;
    ncclResult_t r = ncclSuccess;
    int calls = 0;
    while (comm == NULL && r == ncclSuccess && now_seconds() < deadline) {
        r = s->sender ? s->net->connect(s->ctx, 0, (void *)handle, &comm, NULL) : s->net->accept(s->listen_comm, &comm, NULL);
        calls++;
    }
    check(r == ncclSuccess && comm != NULL, "%s returned a communicator after %d call(s)", s->sender ? "connect" : "accept",
          calls);
    return comm;
}

static void bad_handles(struct side *s) {
    ncclNet_v12_t *net = s->net;
    void *garbage = (void *)(uintptr_t)0xdeadbeefcafeULL;
    void *out = (void *)0x77;
    int done = 0;
    char handle[NCCL_NET_HANDLE_MAXSIZE];
    check(net->test(NULL, &done, NULL) == ncclInternalError, "test(NULL) is ncclInternalError");
    check(strstr(last_warning(), "test") != NULL, "and NCCL's logger got a warning naming test: \"%s\"", last_warning());
    check(net->test(garbage, &done, NULL) == ncclInternalError, "test(garbage) is ncclInternalError");
    check(net->isend(NULL, s->buf, 1, 0, NULL, NULL, &out) == ncclInternalError, "isend(NULL comm) is ncclInternalError");
    check(net->isend(garbage, s->buf, 1, 0, NULL, NULL, &out) == ncclInternalError, "isend(garbage comm) is ncclInternalError");
    check(net->irecv(garbage, 1, (void **)&s->buf, (size_t[]){1}, (int[]){0}, &out, NULL, &out) == ncclInternalError,
          "irecv(garbage comm) is ncclInternalError");
    check(net->regMr(NULL, s->buf, 64, NCCL_PTR_HOST, &out) == ncclInternalError, "regMr(NULL comm) is ncclInternalError");
    check(net->deregMr(garbage, garbage) == ncclInternalError, "deregMr(garbage) is ncclInternalError");
    check(net->closeSend(garbage) == ncclInternalError, "closeSend(garbage) is ncclInternalError");
    check(net->closeRecv(NULL) == ncclInternalError, "closeRecv(NULL) is ncclInternalError");
    check(net->closeListen(garbage) == ncclInternalError, "closeListen(garbage) is ncclInternalError");
    check(net->accept(garbage, &out, NULL) == ncclInternalError, "accept(garbage) is ncclInternalError");
    check(net->listen(garbage, 0, handle, &out) == ncclInternalError, "listen with a garbage ctx is ncclInternalError");
    check(net->finalize(garbage) == ncclInternalError, "finalize(garbage) is ncclInternalError");
    check(net->devices(NULL) == ncclInternalError, "devices(NULL) is ncclInternalError");
    ncclNetProperties_v12_t props;
    check(net->getProperties(99, &props) != ncclSuccess, "getProperties of device 99 fails");
    check(out == (void *)0x77, "no failed call wrote its output");
}

int init_side(struct side *s) {
    int ndev = 0;
    int ok = s->net->init(&s->ctx, 42, comm_config(), driver_logger, NULL) == ncclSuccess && s->ctx != NULL;
    check(ok, "init");
    if (!ok) {
        return -1; /* nothing after a failed init has a plugin to call */
    }
    check(s->net->devices(&ndev) == ncclSuccess && ndev >= 1, "devices: %d", ndev);
    check(saw_init_line(), "NCCL's logger received ofinet's init line (the device's rails) at INFO with NET");
    ncclNetProperties_v12_t props;
    memset(&props, 0x5A, sizeof props);
    if (s->net->getProperties(0, &props) != ncclSuccess) {
        check(0, "getProperties(0)");
        return -1;
    }
    check(props.name != NULL && props.ptrSupport == NCCL_PTR_HOST && props.maxRecvs == MAX_RECVS &&
              props.maxP2pBytes <= 0x7FFFFFFF && props.maxCollBytes <= 0x7FFFFFFF && props.railId == -1 &&
              props.planeId == -1 && props.vProps.ndevs == 1 && props.vProps.devs[0] == 0 && props.forceFlush == 0 &&
              props.maxMultiRequestSize == 1 && props.netDeviceType == 0 && props.speed > 0 && props.maxComms > 0 &&
              props.latency >= 0,
          "properties: name %s, ptrSupport %d, maxRecvs %d, maxP2pBytes %zu, railId %d, speed %d Mbps, latency %.1f us",
          props.name ? props.name : "NULL", props.ptrSupport, props.maxRecvs, props.maxP2pBytes, props.railId,
          props.speed, props.latency);
    return 0;
}

void *reg(struct side *s, void *comm) {
    void *mr = NULL;
    check(s->net->regMr(comm, s->buf, BUFFER_BYTES, NCCL_PTR_HOST, &mr) == ncclSuccess && mr != NULL, "regMr");
    return mr;
}

void *post_send(struct side *s, void *comm, size_t offset, size_t size, int tag, void *mr) {
    void *req = NULL;
    double deadline = now_seconds() + WAIT_SECONDS;
    ncclResult_t r;
    while ((r = s->net->isend(comm, data_of(s) + offset, size, tag, mr, NULL, &req)) == ncclSuccess && req == NULL &&
           now_seconds() < deadline) {
    }
    if (r != ncclSuccess || req == NULL) {
        check(0, "isend of %zu bytes with tag %d: result %d", size, tag, r);
    }
    return req;
}

void *post_recv(struct side *s, void *comm, int n, size_t *offsets, size_t *sizes, int *tags, void *mr,
                       void *preset) {
    void *data[MAX_RECVS];
    void *mrs[MAX_RECVS];
    for (int i = 0; i < n; i++) {
        data[i] = data_of(s) + offsets[i];
        mrs[i] = mr;
    }
    void *req = preset;
    double deadline = now_seconds() + WAIT_SECONDS;
    ncclResult_t r;
    while ((r = s->net->irecv(comm, n, data, sizes, tags, mrs, NULL, &req)) == ncclSuccess && req == NULL &&
           now_seconds() < deadline) {
    }
    if (r != ncclSuccess || req == NULL) {
        check(0, "irecv of %d buffers: result %d", n, r);
    }
    return req;
}

static const size_t SIZES[] = {0, 1, 7, 8, 100, 4096, 5000, 65536, 65537, MiB, 3 * MiB + 7, 8 * MiB};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])

/* Connection A: sizes, a grouped receive, many in flight, iflush, the optional-completion preset. */
static void connection_a(struct side *s, void *comm, void *mr) {
    for (size_t i = 0; i < NSIZES; i++) {
        size_t size = SIZES[i];
        if (s->sender) {
            fill_pattern(data_of(s), size, (unsigned)i);
            int sent = -1;
            void *req = post_send(s, comm, 0, size, (int)i, mr);
            check(req && await_request(s->net, req, &sent, WAIT_SECONDS) == ncclSuccess && sent == (int)size,
                  "sent %zu bytes (test reported %d)", size, sent);
        } else {
            reset_buffer(s);
            size_t offset = 0, capacity = 8 * MiB;
            int tag = (int)i, got = -1;
            /* One receive comes with NCCL's preset: the plugin must overwrite it with a real request. */
            void *preset = size == 4096 ? (void *)NCCL_NET_OPTIONAL_RECV_COMPLETION : NULL;
            void *req = post_recv(s, comm, 1, &offset, &capacity, &tag, mr, preset);
            if (preset != NULL) {
                check(req != preset, "irecv overwrote a request preset to NCCL_NET_OPTIONAL_RECV_COMPLETION");
            }
            ncclResult_t r = req ? await_request(s->net, req, &got, WAIT_SECONDS) : ncclSystemError;
            check(r == ncclSuccess && got == (int)size && has_pattern(data_of(s), size, (unsigned)i) &&
                      (size == capacity || data_of(s)[size] == EMPTY_BYTE) && canaries_intact(data_of(s), capacity),
                  "received %zu bytes intact (test reported %d), nothing written past them", size, got);
        }
    }

    /* A grouped receive of 8 buffers with distinct tags; the sender sends them in reverse order. */
    if (s->sender) {
        void *reqs[MAX_RECVS];
        for (int i = MAX_RECVS - 1; i >= 0; i--) {
            fill_pattern(data_of(s) + (size_t)i * 65536, 1000u * (i + 1), 100u + i);
            reqs[i] = post_send(s, comm, (size_t)i * 65536, 1000u * (i + 1), 100 + i, mr);
        }
        int ok = 1;
        for (int i = 0; i < MAX_RECVS; i++) {
            ok &= reqs[i] && await_request(s->net, reqs[i], NULL, WAIT_SECONDS) == ncclSuccess;
        }
        check(ok, "sent 8 messages with tags 107..100 for one grouped receive");
    } else {
        reset_buffer(s);
        size_t offsets[MAX_RECVS], sizes[MAX_RECVS];
        int tags[MAX_RECVS], got[MAX_RECVS];
        for (int i = 0; i < MAX_RECVS; i++) {
            offsets[i] = (size_t)i * 65536;
            sizes[i] = 65536;
            tags[i] = 100 + i;
        }
        void *req = post_recv(s, comm, MAX_RECVS, offsets, sizes, tags, mr, NULL);
        int ok = req && await_request(s->net, req, got, WAIT_SECONDS) == ncclSuccess;
        for (int i = 0; ok && i < MAX_RECVS; i++) {
            ok = got[i] == 1000 * (i + 1) && has_pattern(data_of(s) + offsets[i], 1000u * (i + 1), 100u + i);
        }
        check(ok, "a grouped receive of 8 buffers matched each by its tag, sizes reported per buffer");
    }

    /* 32 grouped receives and 32 x 8 sends in flight on one communicator. */
    rendezvous(s, "in flight");
    if (s->sender) {
        void *reqs[FLIGHT * MAX_RECVS];
        int posted = 0;
        for (int r = 0; r < FLIGHT; r++) {
            for (int t = 0; t < MAX_RECVS; t++) {
                size_t at = ((size_t)r * MAX_RECVS + t) * 8192;
                fill_pattern(data_of(s) + at, 8192, (unsigned)(r * MAX_RECVS + t));
                void *req = NULL;
                s->net->isend(comm, data_of(s) + at, 8192, t, mr, NULL, &req);
                reqs[posted] = req;
                posted += req != NULL;
            }
        }
        check(posted == FLIGHT * MAX_RECVS, "%d of %d sends accepted at once, none tested yet", posted, FLIGHT * MAX_RECVS);
        int ok = 1;
        for (int i = 0; i < posted; i++) {
            ok &= await_request(s->net, reqs[i], NULL, WAIT_SECONDS) == ncclSuccess;
        }
        check(ok, "all %d sends completed", posted);
    } else {
        reset_buffer(s);
        void *reqs[FLIGHT];
        int posted = 0;
        for (int r = 0; r < FLIGHT; r++) {
            size_t offsets[MAX_RECVS], sizes[MAX_RECVS];
            int tags[MAX_RECVS];
            void *data[MAX_RECVS], *mrs[MAX_RECVS];
            for (int t = 0; t < MAX_RECVS; t++) {
                offsets[t] = ((size_t)r * MAX_RECVS + t) * 8192;
                sizes[t] = 8192;
                tags[t] = t;
                data[t] = data_of(s) + offsets[t];
                mrs[t] = mr;
            }
            void *req = NULL;
            s->net->irecv(comm, MAX_RECVS, data, sizes, tags, mrs, NULL, &req);
            reqs[posted] = req;
            posted += req != NULL;
        }
        check(posted == FLIGHT, "%d of %d grouped receives accepted at once", posted, FLIGHT);
        int ok = 1;
        for (int i = 0; i < posted; i++) {
            int got[MAX_RECVS];
            ok &= await_request(s->net, reqs[i], got, WAIT_SECONDS) == ncclSuccess;
            for (int t = 0; ok && t < MAX_RECVS; t++) {
                size_t at = ((size_t)i * MAX_RECVS + t) * 8192;
                ok = got[t] == 8192 && has_pattern(data_of(s) + at, 8192, (unsigned)(i * MAX_RECVS + t));
            }
        }
        check(ok, "all %d grouped receives completed with their messages in order", posted);

        /* iflush of a received buffer: a request to wait for, never NULL. */
        void *data = data_of(s);
        int size = 8192;
        void *flush = NULL;
        check(s->net->iflush(comm, 1, &data, &size, &mr, &flush) == ncclSuccess && flush != NULL,
              "iflush returned a request");
        check(flush != NULL && await_request(s->net, flush, NULL, WAIT_SECONDS) == ncclSuccess, "the flush completed");
    }
}

/*
 * Connections B and C: a message larger than its receive buffer. The receive fails with
 * ncclInvalidUsage and nothing is written; the send completes if it went eagerly before the
 * receive was known, else fails at its own test with ncclInvalidUsage; then the pair goes on.
 */
static void truncation(struct side *s, void *comm, void *mr, size_t sent, size_t capacity) {
    if (s->sender) {
        fill_pattern(data_of(s), sent, 9);
        void *req = post_send(s, comm, 0, sent, 1, mr);
        ncclResult_t r = req ? await_request(s->net, req, NULL, WAIT_SECONDS) : ncclSystemError;
        check(r == ncclInvalidUsage || (r == ncclSuccess && sent <= 8192),
              "%zu bytes into %zu: the send %s (result %d)", sent, capacity,
              r == ncclSuccess ? "completed eagerly" : "fails at its own test", r);
        fill_pattern(data_of(s), 1024, 33);
        int got = -1;
        req = post_send(s, comm, 0, 1024, 3, mr);
        check(req && await_request(s->net, req, &got, WAIT_SECONDS) == ncclSuccess && got == 1024,
              "then 1 KiB on the same communicator is sent");
    } else {
        reset_buffer(s);
        size_t offset = 0;
        int tag = 1;
        void *req = post_recv(s, comm, 1, &offset, &capacity, &tag, mr, NULL);
        int got = -1;
        ncclResult_t r = req ? await_request(s->net, req, &got, WAIT_SECONDS) : ncclSystemError;
        check(r == ncclInvalidUsage, "%zu bytes into %zu: the receive fails with ncclInvalidUsage (got %d): \"%s\"", sent,
              capacity, r, last_warning());
        check(data_of(s)[capacity] == EMPTY_BYTE && canaries_intact(data_of(s), 8 * MiB),
              "nothing written past the %zu-byte buffer, canaries intact", capacity);
        size_t small = 1024;
        tag = 3;
        req = post_recv(s, comm, 1, &offset, &small, &tag, mr, NULL);
        check(req && await_request(s->net, req, &got, WAIT_SECONDS) == ncclSuccess && got == 1024 &&
                  has_pattern(data_of(s), 1024, 33),
              "then 1 KiB on the same communicator arrives intact");
    }
}

/* Connection D: closed with requests in flight on both sides. */
static void close_in_flight(struct side *s, void *comm, void *mr) {
    void *reqs[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++) {
        if (s->sender) {
            reqs[i] = post_send(s, comm, (size_t)i * MiB, MiB, 10 + i, mr);
        } else if (i < 2) {
            /* Receives for the first two sends only: the last two sends wait for receives never posted. */
            size_t offset = (size_t)(4 + i) * MiB, capacity = MiB;
            int tag = 10 + i;
            reqs[i] = post_recv(s, comm, 1, &offset, &capacity, &tag, mr, NULL);
        }
    }
    rendezvous(s, "close in flight");
    ncclResult_t r = s->sender ? s->net->closeSend(comm) : s->net->closeRecv(comm);
    check(r == ncclSuccess, "%s with requests in flight", s->sender ? "closeSend" : "closeRecv");
    int done = 0;
    check(s->net->test(reqs[0], &done, NULL) == ncclInternalError, "a request of the closed communicator is stale");
    check(canaries_intact(data_of(s), 8 * MiB), "canaries intact after the close");
    rendezvous(s, "closed");
}

static void *run_side(void *arg) {
    struct side *s = arg;
    if (start_side(s) != 0) {
        return NULL;
    }
    bad_handles(s);
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    exchange_handle(s, handle);
    void *comms[4];
    for (int c = 0; c < 4; c++) {
        comms[c] = connect_comm(s, handle);
        if (comms[c] == NULL) {
            return NULL;
        }
        s->mr[c] = reg(s, comms[c]);
        if (c == 0) {
            connection_a(s, comms[0], s->mr[0]);
        } else if (c == 1) {
            truncation(s, comms[1], s->mr[1], 5 * 1024, 4 * 1024);
        } else if (c == 2) {
            truncation(s, comms[2], s->mr[2], 2 * MiB, MiB);
        } else {
            close_in_flight(s, comms[3], s->mr[3]);
        }
        rendezvous(s, "connection done");
    }
    for (int c = 0; c < 3; c++) {
        ncclResult_t r = s->sender ? s->net->closeSend(comms[c]) : s->net->closeRecv(comms[c]);
        check(r == ncclSuccess, "closing communicator %d", c);
    }
    ncclResult_t again = s->sender ? s->net->closeSend(comms[0]) : s->net->closeRecv(comms[0]);
    check(again == ncclInternalError, "closing it again is ncclInternalError");
    for (int c = 0; c < 4; c++) {
        check(s->net->deregMr(comms[c], s->mr[c]) == ncclSuccess, "deregMr %d after its communicator closed", c);
    }
    if (!s->sender) {
        check(s->net->closeListen(s->listen_comm) == ncclSuccess, "closeListen");
    }
    check(s->net->finalize(s->ctx) == ncclSuccess, "finalize");
    check(s->net->finalize(s->ctx) == ncclInternalError, "finalize of a finalized ctx is ncclInternalError");
    return NULL;
}

static int run(struct side *s, void *(*body)(void *), int on_thread) {
    s->buf = malloc(BUFFER_BYTES);
    if (s->buf == NULL) {
        check(0, "allocating %u bytes", BUFFER_BYTES);
        return 1;
    }
    reset_buffer(s);
    if (on_thread) {
        pthread_t thread;
        int rc = pthread_create(&thread, NULL, body, s);
        check(rc == 0, "the side runs on a second thread");
        if (rc == 0) {
            pthread_join(thread, NULL);
        }
    } else {
        body(s);
    }
    printf("%s: %d passed, %d failed\n", driver_side, driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}

int run_pair(int on_thread) {
    return run_two(run_side, on_thread);
}

int run_two(void *(*body)(void *), int on_thread) {
    int socks[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks) != 0) {
        fprintf(stderr, "socketpair: %s\n", strerror(errno));
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "fork: %s\n", strerror(errno));
        return 1;
    }
    struct side s = {.sock = child == 0 ? socks[1] : socks[0], .sender = child == 0};
    close(child == 0 ? socks[0] : socks[1]);
    if (child == 0) {
        driver_side = "send";
        /* The sender ends with its parent. */
        alarm(240);
        _exit(run(&s, body, on_thread));
    }
    driver_side = "recv";
    int status = run(&s, body, on_thread);
    int child_status = 0;
    if (waitpid(child, &child_status, 0) != child) {
        child_status = -1;
    }
    int child_ok = WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0;
    if (WIFSIGNALED(child_status)) {
        printf("pair: the sender was ended by signal %d\n", WTERMSIG(child_status));
    }
    printf("pair: receiver %s, sender %s\n", status == 0 ? "passed" : "failed", child_ok ? "passed" : "failed");
    return status == 0 && child_ok ? 0 : 1;
}
