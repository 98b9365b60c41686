/*
 * NCCL's lifecycle through the library, two processes each (this one receives, a forked child sends):
 *   versions   the v10 and v9 tables (one process-wide init, sizes 8 B - 1 MiB, a grouped receive),
 *              then the v11 table: two communicators with their own init and finalize, a third
 *              sharing the first's context
 *   reload     the receiver dlcloses and dlopens the library and inits again, three rounds, while
 *              the sender stays up; every round moves verified data
 *   teardown   deregMr of every handle, then close, as NCCL tears down: after every request ended,
 *              with requests outstanding, with a send coming into a receive whose memory was
 *              deregistered and freed, and after the peer died
 *   exit       both sides exit(0) with communicators open on shm: no /dev/shm name stays
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

/* One version's operations, behind one signature. */
struct ops {
    const char *version;
    ncclResult_t (*listen)(void *ctx, int dev, void *handle, void **listenComm);
    ncclResult_t (*connect)(void *ctx, int dev, void *handle, void **sendComm);
    ncclResult_t (*accept)(void *listenComm, void **recvComm);
    ncclResult_t (*reg_mr)(void *comm, void *data, size_t size, int type, void **mhandle);
    ncclResult_t (*dereg_mr)(void *comm, void *mhandle);
    ncclResult_t (*isend)(void *sendComm, void *data, size_t size, int tag, void *mhandle, void **request);
    ncclResult_t (*irecv)(void *recvComm, int n, void **data, size_t *sizes, int *tags, void **mhandles, void **request);
    ncclResult_t (*test)(void *request, int *done, int *sizes);
    ncclResult_t (*close_send)(void *comm);
    ncclResult_t (*close_recv)(void *comm);
    ncclResult_t (*close_listen)(void *comm);
};

static ncclNet_v10_t *v10;
static ncclNet_v9_t *v9;
static ncclNet_v12_t *v12;

static ncclResult_t v10_listen(void *ctx, int dev, void *h, void **lc) { (void)ctx; return v10->listen(dev, h, lc); }
static ncclResult_t v10_connect(void *ctx, int dev, void *h, void **sc) {
    (void)ctx;
    ncclNetCommConfig_v10_t config = {.trafficClass = NCCL_NET_TRAFFIC_CLASS_UNDEF};
    return v10->connect(dev, &config, h, sc, NULL);
}
static ncclResult_t v10_accept(void *lc, void **rc) { return v10->accept(lc, rc, NULL); }
static ncclResult_t v10_isend(void *c, void *d, size_t n, int t, void *m, void **r) { return v10->isend(c, d, n, t, m, NULL, r); }
static ncclResult_t v10_irecv(void *c, int n, void **d, size_t *sz, int *t, void **m, void **r) {
    return v10->irecv(c, n, d, sz, t, m, NULL, r);
}
static ncclResult_t v9_listen(void *ctx, int dev, void *h, void **lc) { (void)ctx; return v9->listen(dev, h, lc); }
static ncclResult_t v9_connect(void *ctx, int dev, void *h, void **sc) { (void)ctx; return v9->connect(dev, h, sc, NULL); }
static ncclResult_t v9_accept(void *lc, void **rc) { return v9->accept(lc, rc, NULL); }
static ncclResult_t v12_connect(void *ctx, int dev, void *h, void **sc) { return v12->connect(ctx, dev, h, sc, NULL); }
static ncclResult_t v12_accept(void *lc, void **rc) { return v12->accept(lc, rc, NULL); }
static ncclResult_t v12_isend(void *c, void *d, size_t n, int t, void *m, void **r) { return v12->isend(c, d, n, t, m, NULL, r); }
static ncclResult_t v12_irecv(void *c, int n, void **d, size_t *sz, int *t, void **m, void **r) {
    return v12->irecv(c, n, d, sz, t, m, NULL, r);
}

static ncclResult_t await_ops(const struct ops *o, void *request, int *sizes) {
    double deadline = now_seconds() + 60;
    for (;;) {
        int done = 0;
        ncclResult_t r = o->test(request, &done, sizes);
        if (r != ncclSuccess || done || now_seconds() > deadline) {
            return r != ncclSuccess || done ? r : ncclSystemError;
        }
    }
}

/* Connects (sender) or accepts (receiver) one communicator through o, with the listen handle given. */
static void *open_comm(struct side *s, const struct ops *o, void *ctx, void *listen, unsigned char *handle) {
    void *comm = NULL;
    double deadline = now_seconds() + 60;
    ncclResult_t r = ncclSuccess;
    while (comm == NULL && r == ncclSuccess && now_seconds() < deadline) {
        r = s->sender ? o->connect(ctx, 0, handle, &comm) : o->accept(listen, &comm);
    }
    check(r == ncclSuccess && comm != NULL, "%s: %s", o->version, s->sender ? "connected" : "accepted");
    return comm;
}

/* One message of size bytes with tag, verified, in the side's direction. */
static int one_message(struct side *s, const struct ops *o, void *comm, void *mr, size_t size, int tag) {
    int got = -1;
    void *req = NULL;
    if (s->sender) {
        fill_pattern(data_of(s), size, (unsigned)(size + tag));
        while (o->isend(comm, data_of(s), size, tag, mr, &req) == ncclSuccess && req == NULL) {
        }
        return req != NULL && await_ops(o, req, &got) == ncclSuccess;
    }
    reset_buffer(s);
    void *data = data_of(s);
    size_t capacity = 2 * MiB;
    while (o->irecv(comm, 1, &data, &capacity, &tag, &mr, &req) == ncclSuccess && req == NULL) {
    }
    return req != NULL && await_ops(o, req, &got) == ncclSuccess && got == (int)size &&
           has_pattern(data_of(s), size, (unsigned)(size + tag)) && canaries_intact(data_of(s), 8 * MiB);
}

/* A connection through o: sizes 8 B - 1 MiB, a grouped receive of four tagged buffers, the closes. */
static void connection(struct side *s, const struct ops *o, void *ctx) {
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    void *listen = NULL;
    if (!s->sender) {
        check(o->listen(ctx, 0, handle, &listen) == ncclSuccess, "%s: listen", o->version);
        check(write(s->sock, handle, sizeof handle) == (ssize_t)sizeof handle, "%s: handle sent", o->version);
    } else {
        check(read(s->sock, handle, sizeof handle) == (ssize_t)sizeof handle, "%s: handle received", o->version);
    }
    void *comm = open_comm(s, o, ctx, listen, handle);
    void *mr = NULL;
    check(comm && o->reg_mr(comm, s->buf, BUFFER_BYTES, NCCL_PTR_HOST, &mr) == ncclSuccess, "%s: regMr", o->version);
    static const size_t sizes[] = {8, 4096, 65536, MiB};
    for (size_t i = 0; comm && i < sizeof sizes / sizeof sizes[0]; i++) {
        check(one_message(s, o, comm, mr, sizes[i], (int)i), "%s: %zu bytes verified", o->version, sizes[i]);
    }
    /* A grouped receive of 4 buffers; the sender sends their tags in reverse. */
    void *req = NULL;
    if (s->sender && comm) {
        void *reqs[4];
        int ok = 1;
        for (int i = 3; i >= 0; i--) {
            fill_pattern(data_of(s) + i * 8192, 1000 + i, 50u + i);
            reqs[i] = NULL;
            while (o->isend(comm, data_of(s) + i * 8192, 1000 + i, 50 + i, mr, &reqs[i]) == ncclSuccess && !reqs[i]) {
            }
        }
        for (int i = 0; i < 4; i++) {
            ok &= reqs[i] != NULL && await_ops(o, reqs[i], NULL) == ncclSuccess;
        }
        check(ok, "%s: four tagged sends for one grouped receive", o->version);
    } else if (comm) {
        void *data[4], *mrs[4];
        size_t caps[4];
        int tags[4], got[4];
        for (int i = 0; i < 4; i++) {
            data[i] = data_of(s) + i * 8192;
            mrs[i] = mr;
            caps[i] = 8192;
            tags[i] = 50 + i;
        }
        while (o->irecv(comm, 4, data, caps, tags, mrs, &req) == ncclSuccess && req == NULL) {
        }
        int ok = req != NULL && await_ops(o, req, got) == ncclSuccess;
        for (int i = 0; ok && i < 4; i++) {
            ok = got[i] == 1000 + i && has_pattern(data_of(s) + i * 8192, 1000 + i, 50u + i);
        }
        check(ok, "%s: a grouped receive matched four buffers by tag", o->version);
    }
    rendezvous(s, "before closing");
    check(o->dereg_mr(comm, mr) == ncclSuccess, "%s: deregMr", o->version);
    check((s->sender ? o->close_send(comm) : o->close_recv(comm)) == ncclSuccess, "%s: close", o->version);
    if (listen != NULL) {
        check(o->close_listen(listen) == ncclSuccess, "%s: closeListen", o->version);
    }
}

static void *open_library(void) {
    void *lib = open_plugin();
    if (lib != NULL) {
        check(1, "dlopen of the library");
    }
    return lib;
}

/* What an older table's getProperties must leave alone: the bytes right after the version's struct. */
#define GUARD_BYTES 64
#define GUARD_BYTE 0xA5

static int guard_intact(const unsigned char *guard) {
    for (int i = 0; i < GUARD_BYTES; i++) {
        if (guard[i] != GUARD_BYTE) {
            return 0;
        }
    }
    return 1;
}

/* An older table's properties of device 0 into out, through a buffer of exactly its struct and the guard. */
#define GUARDED_PROPERTIES(net, type, version, out)                                                      \
    do {                                                                                                 \
        struct {                                                                                         \
            type p;                                                                                      \
            unsigned char guard[GUARD_BYTES];                                                            \
        } guarded;                                                                                       \
        memset(&guarded, GUARD_BYTE, sizeof guarded);                                                    \
        check((net)->getProperties(0, &guarded.p) == ncclSuccess && guard_intact(guarded.guard),         \
              version ": properties, within its struct");                                                \
        (out) = guarded.p;                                                                               \
    } while (0)

static void *versions_side(void *arg) {
    struct side *s = arg;
    void *lib = open_library();
    if (lib == NULL) {
        return NULL;
    }
    v10 = dlsym(lib, "ncclNetPlugin_v10");
    v9 = dlsym(lib, "ncclNetPlugin_v9");
    v12 = dlsym(lib, "ncclNetPlugin_v12");
    ncclNet_v11_t *v11 = dlsym(lib, "ncclNetPlugin_v11");
    check(v10 && v9 && v11 && v12, "dlsym of the v9, v10, v11 and v12 tables");
    if (!(v10 && v9 && v11 && v12)) {
        return NULL;
    }
    check(v10->init(driver_logger, NULL) == ncclSuccess, "v10: init");
    ncclNetProperties_v12_t p12;
    check(v12->getProperties(0, &p12) == ncclSuccess && p12.maxP2pBytes > 0 && p12.maxCollBytes > 0 &&
              p12.vProps.ndevs == 1 && p12.vProps.devs[0] == 0,
          "v12: properties");
    ncclNetProperties_v10_t p10;
    GUARDED_PROPERTIES(v10, ncclNetProperties_v10_t, "v10", p10);
    check(p10.maxRecvs == 8 && p10.ptrSupport == NCCL_PTR_HOST && p10.maxP2pBytes == p12.maxP2pBytes &&
              p10.maxCollBytes == p12.maxCollBytes && p10.forceFlush == 0 && p10.vProps.ndevs == 1 &&
              p10.vProps.devs[0] == 0 && p10.netDeviceType == 0 && p10.speed == p12.speed,
          "v10: properties, as v12's");
    struct ops o10 = {"v10", v10_listen, v10_connect, v10_accept, v10->regMr, v10->deregMr, v10_isend, v10_irecv,
                      v10->test, v10->closeSend, v10->closeRecv, v10->closeListen};
    connection(s, &o10, NULL);

    check(v9->init(driver_logger) == ncclSuccess, "v9: init again in the same process, harmless");
    ncclNetProperties_v9_t p9;
    GUARDED_PROPERTIES(v9, ncclNetProperties_v9_t, "v9", p9);
    check(p9.maxRecvs == 8 && p9.ptrSupport == NCCL_PTR_HOST && p9.maxP2pBytes == p12.maxP2pBytes &&
              p9.maxCollBytes == p12.maxCollBytes && p9.forceFlush == 0 && p9.vProps.ndevs == 1 &&
              p9.netDeviceType == 0 && p9.speed == p12.speed,
          "v9: properties, as v12's");
    struct ops o9 = {"v9", v9_listen, v9_connect, v9_accept, v9->regMr, v9->deregMr, v9->isend, v9->irecv, v9->test,
                     v9->closeSend, v9->closeRecv, v9->closeListen};
    connection(s, &o9, NULL);

    /* v11: contexts per communicator. */
    void *ctx1 = NULL, *ctx2 = NULL;
    ncclNetCommConfig_v11_t config = {.trafficClass = NCCL_NET_TRAFFIC_CLASS_UNDEF};
    check(v11->init(&ctx1, 1, &config, driver_logger, NULL) == ncclSuccess &&
              v11->init(&ctx2, 2, &config, driver_logger, NULL) == ncclSuccess && ctx1 && ctx2 && ctx1 != ctx2,
          "v11: two communicators' inits give two contexts");
    ncclNetProperties_v11_t p11;
    GUARDED_PROPERTIES(v11, ncclNetProperties_v11_t, "v11", p11);
    check(p11.maxMultiRequestSize == 1 && p11.maxP2pBytes == p12.maxP2pBytes && p11.maxCollBytes == p12.maxCollBytes &&
              p11.vProps.ndevs == 1 && p11.vProps.devs[0] == 0 && p11.speed == p12.speed,
          "v11: properties, as v12's");
    struct ops o11 = {"v11", v11->listen, v12_connect, v12_accept, v11->regMr, v11->deregMr, v12_isend, v12_irecv,
                      v11->test, v11->closeSend, v11->closeRecv, v11->closeListen};
    connection(s, &o11, ctx1);
    connection(s, &o11, ctx2);
    o11.version = "v11 (a split communicator, sharing the first one's context)";
    connection(s, &o11, ctx1);
    check(v11->finalize(ctx1) == ncclSuccess && v11->finalize(ctx2) == ncclSuccess, "v11: finalize each context");
    check(v11->finalize(ctx1) == ncclInternalError, "v11: a finalized context is gone");
    return NULL;
}

int run_versions(void) {
    return run_two(versions_side, 0);
}

/* The receiver reloads the library three times; the sender stays. */
static void *reload_side(void *arg) {
    struct side *s = arg;
    for (int round = 0; round < 3; round++) {
        void *lib = open_library();
        if (lib == NULL) {
            return NULL;
        }
        v12 = dlsym(lib, "ncclNetPlugin_v12");
        s->net = v12;
        if (round == 0 || !s->sender) {
            check(v12->init(&s->ctx, (uint64_t)round, NULL, driver_logger, NULL) == ncclSuccess,
                  "round %d: init after dlopen", round);
        }
        struct ops o = {"v12", v12->listen, v12_connect, v12_accept, v12->regMr, v12->deregMr, v12_isend, v12_irecv,
                        v12->test, v12->closeSend, v12->closeRecv, v12->closeListen};
        connection(s, &o, s->ctx);
        if (!s->sender) {
            check(v12->finalize(s->ctx) == ncclSuccess, "round %d: finalize", round);
            check(dlclose(lib) == 0, "round %d: dlclose", round);
        }
    }
    return NULL;
}

int run_reload(void) {
    return run_two(reload_side, 0);
}

/* Posts a receive (receiver) or a send (sender) of 1 MiB with tag and leaves it outstanding. */
static void *outstanding(struct side *s, void *comm, void *mr, size_t offset, int tag) {
    size_t capacity = MiB;
    return s->sender ? post_send(s, comm, offset, MiB, tag, mr) : post_recv(s, comm, 1, &offset, &capacity, &tag, mr, NULL);
}

/*
 * (d) NCCL aborts: the receiver deregisters the memory of a receive still outstanding, then frees
 * it (here: fills it with FREED_BYTE), and closes only after that; the sender sends into the
 * receive meanwhile, and its send ends either way within SEND_SECONDS. Nothing may land in the
 * memory once deregMr has returned.
 */
#define FREED_BYTE 0xF5
#define SEND_SECONDS 10.0
static void deregistered_memory_stays_untouched(struct side *s, void *comm, void *mr) {
    int tag = 40;
    void *req = NULL;
    if (!s->sender) {
        memset(data_of(s), EMPTY_BYTE, MiB);
        req = outstanding(s, comm, mr, 0, tag);
    }
    check(s->sender || req != NULL, "(d) a receive outstanding");
    rendezvous(s, "(d) posted");
    if (!s->sender) {
        check(v12->deregMr(comm, mr) == ncclSuccess, "(d) deregMr of the receive's memory succeeds");
        memset(data_of(s), FREED_BYTE, MiB);
    }
    rendezvous(s, "(d) deregistered");
    if (s->sender) {
        fill_pattern(data_of(s), MiB, 40u);
        int done = 0;
        ncclResult_t r = v12->isend(comm, data_of(s), MiB, tag, mr, NULL, &req);
        double deadline = now_seconds() + SEND_SECONDS;
        while (r == ncclSuccess && !done && now_seconds() < deadline) {
            r = req == NULL ? v12->isend(comm, data_of(s), MiB, tag, mr, NULL, &req) : v12->test(req, &done, NULL);
        }
        printf("%s: (d) the send into the deregistered receive: result %d, done %d\n", driver_side, r, done);
    }
    rendezvous(s, "(d) sent");
    if (s->sender) {
        check(v12->deregMr(comm, mr) == ncclSuccess, "(d) the sender's deregMr");
    }
    check((s->sender ? v12->closeSend(comm) : v12->closeRecv(comm)) == ncclSuccess, "(d) then close");
    if (!s->sender) {
        size_t changed = 0;
        for (size_t i = 0; i < MiB; i++) {
            changed += data_of(s)[i] != FREED_BYTE;
        }
        check(changed == 0, "(d) nothing written into the memory after its deregMr, until and through the close"
              " (%zu bytes changed)", changed);
    }
    check(canaries_intact(data_of(s), 8 * MiB), "(d) canaries intact");
}

/*
 * NCCL's teardown: deregMr of every handle, then close. (a) every request ended; (b) requests
 * outstanding on both sides; (d) a send coming into a receive whose memory was deregistered; (c) the
 * peer died (the sender's process ends at once).
 */
static void *teardown_side(void *arg) {
    struct side *s = arg;
    s->net = load_table();
    v12 = s->net;
    if (v12 == NULL || init_side(s) != 0) {
        return NULL;
    }
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    exchange_handle(s, handle);
    struct ops o = {"(a) all ended", v12->listen, v12_connect, v12_accept, v12->regMr, v12->deregMr, v12_isend,
                    v12_irecv, v12->test, v12->closeSend, v12->closeRecv, v12->closeListen};
    void *comm = connect_comm(s, handle);
    void *mr = reg(s, comm);
    check(one_message(s, &o, comm, mr, 65536, 1), "(a) a message verified");
    rendezvous(s, "(a)");
    check(v12->deregMr(comm, mr) == ncclSuccess, "(a) deregMr, every request ended");
    check((s->sender ? v12->closeSend(comm) : v12->closeRecv(comm)) == ncclSuccess, "(a) then close");

    comm = connect_comm(s, handle);
    mr = reg(s, comm);
    /* Two receives whose sends never come, and sends beyond the receives posted: all outstanding. */
    void *reqs[2];
    for (int i = 0; i < 2; i++) {
        reqs[i] = outstanding(s, comm, mr, (size_t)i * MiB, s->sender ? 10 + i : 20 + i);
    }
    check(reqs[0] && reqs[1], "(b) two requests outstanding");
    rendezvous(s, "(b)");
    check(v12->deregMr(comm, mr) == ncclSuccess, "(b) deregMr with requests outstanding succeeds");
    check((s->sender ? v12->closeSend(comm) : v12->closeRecv(comm)) == ncclSuccess, "(b) then close");
    check(canaries_intact(data_of(s), 8 * MiB), "(b) canaries intact");

    comm = connect_comm(s, handle);
    mr = reg(s, comm);
    deregistered_memory_stays_untouched(s, comm, mr);

    comm = connect_comm(s, handle);
    mr = reg(s, comm);
    /* A receive for a message the sender never sends: the sender dies instead. */
    void *req = s->sender ? NULL : outstanding(s, comm, mr, 0, 30);
    rendezvous(s, "(c)");
    if (s->sender) {
        /* This side dies with its communicator open. */
        fflush(stdout);
        _exit(driver_failed == 0 ? 0 : 1);
    }
    int done = 0;
    ncclResult_t r = ncclSuccess;
    double deadline = now_seconds() + 30;
    while (r == ncclSuccess && !done && now_seconds() < deadline) {
        r = v12->test(req, &done, NULL);
    }
    check(r == ncclRemoteError, "(c) the receive waiting for the dead peer fails with ncclRemoteError (got %d)", r);
    check(v12->deregMr(comm, mr) == ncclSuccess, "(c) deregMr after the peer died");
    check(v12->closeRecv(comm) == ncclSuccess, "(c) then closeRecv");
    check(v12->closeListen(s->listen_comm) == ncclSuccess && v12->finalize(s->ctx) == ncclSuccess,
          "closeListen and finalize");
    return NULL;
}

int run_teardown(void) {
    return run_two(teardown_side, 0);
}

/* Both sides connect on shm, then exit(0) with everything open. */
static void *exit_side(void *arg) {
    struct side *s = arg;
    if (start_side(s) != 0) {
        return NULL;
    }
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    exchange_handle(s, handle);
    void *comm = connect_comm(s, handle);
    reg(s, comm);
    rendezvous(s, "connected");
    printf("%s: pid %d exits with its communicators open\n", driver_side, (int)getpid());
    fflush(stdout);
    if (s->sender) {
        exit(driver_failed == 0 ? 0 : 1);
    }
    return NULL;
}

int run_exit(void) {
    int status = run_two(exit_side, 0);
    fflush(stdout);
    exit(status);
}
