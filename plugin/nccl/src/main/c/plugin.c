/*
 * libnccl-net-ofinet.so: NCCL's net plugin table, each entry forwarding to ofinet's Java entry point
 * of the same name. No protocol logic lives here: handles, sizes and results are Java's; C only
 * starts the JVM (jvm.c), carries log lines to NCCL's logger, and turns pointers into int64_t.
 *
 * Only the table is exported (-fvisibility=hidden); everything the JVM reaches in C it receives as
 * a function pointer at boot.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "nccl_abi.h"
#include "ofinet_java.h"
#include "tables.h"

#define ADDR(p) ((int64_t)(intptr_t)(p))

/* The logger of the latest init that handed one; NULL: stderr. */
static _Atomic(ncclDebugLogger_t) nccl_logger;

void ofinet_log(int level, const char *file, int line, const char *fmt, ...) {
    char text[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    ncclDebugLogger_t logger = atomic_load_explicit(&nccl_logger, memory_order_acquire);
    if (logger != NULL) {
        logger(level, NCCL_NET, file, line, "%s", text);
        return;
    }
    const char *debug = getenv("OFINET_DEBUG");
    if (level <= NCCL_LOG_WARN || (debug != NULL && *debug != '\0')) {
        fprintf(stderr, "ofinet %s: %s\n", level <= NCCL_LOG_WARN ? "WARN" : "INFO", text);
    }
}

void ofinet_log_from_java(int level, const char *message) {
    ofinet_log(level, "ofinet", 0, "%s", message);
}

/* Every entry's list fits the one type every entry has. */
#define OFINET_JAVA_FITS(name, arguments)                                                             \
    _Static_assert(OFINET_ARITY_##name <= OFINET_ENTRY_ARGS, #name " lists more arguments than ofinet_entry takes");
OFINET_JAVA_ENTRIES(OFINET_JAVA_FITS)
#undef OFINET_JAVA_FITS

static pthread_once_t exit_hook_once = PTHREAD_ONCE_INIT;
/*
 * Whether calls may enter Java: JAVA_ENDING once the JVM runs its shutdown hooks (it then cleans up
 * itself, and may be gone by exit()); JAVA_FORKED in a child forked from the JVM's process, where
 * the JVM's threads do not exist and a call into it would wait for them for ever.
 */
enum { JAVA_ENTERABLE, JAVA_ENDING, JAVA_FORKED };
static atomic_int java_state;

void ofinet_jvm_ending(void) {
    int enterable = JAVA_ENTERABLE;
    atomic_compare_exchange_strong(&java_state, &enterable, JAVA_ENDING);
}

static void forked_child(void) {
    atomic_store(&java_state, JAVA_FORKED);
}

/*
 * A host that ends with exit() runs no JVM shutdown hook (nothing destroys the JVM): ofinet's
 * cleanup that needs no peer runs from here instead (the warm-up and the watchdog stopped, their
 * provider calls in progress waited for, the /dev/shm names of its shm endpoints removed). Not in
 * a forked child: the /dev/shm names are its parent's, still in use there.
 */
static void at_exit(void) {
    if (ofinet_java.atExit != NULL && atomic_load(&java_state) == JAVA_ENTERABLE) {
        ofinet_java.atExit(0, 0, 0, 0, 0, 0, 0);
    }
}

static void register_exit_hook(void) {
    if (atexit(at_exit) != 0) {
        OFINET_WARN("init: cannot register the cleanup at exit; shm names may stay in /dev/shm");
    }
    if (pthread_atfork(NULL, NULL, forked_child) != 0) {
        OFINET_WARN("init: cannot register ofinet's handler of fork(); a forked child's calls would wait for ever");
    }
}

int ofinet_forked(void) {
    /* Watching fork() from here on: a lock the caller takes next is then never held in a child unseen. */
    pthread_once(&exit_hook_once, register_exit_hook);
    return atomic_load_explicit(&java_state, memory_order_relaxed) == JAVA_FORKED;
}

static atomic_int gone_warned;

/* Why an operation cannot enter Java: init never succeeded, the JVM is shutting down, or this is a forked child. */
static ncclResult_t no_java(const char *operation) {
    int state = atomic_load_explicit(&java_state, memory_order_relaxed);
    if (state != JAVA_ENTERABLE) {
        /* NCCL polls test() in a loop: said once. */
        if (atomic_exchange(&gone_warned, 1) == 0) {
            if (state == JAVA_FORKED) {
                OFINET_WARN("%s: this process was forked from the one ofinet's JVM runs in, whose threads it does"
                            " not have: fork before ofinet's first init, or exec in the child", operation);
            } else {
                OFINET_WARN("%s: the JVM is shutting down; no call enters it any more", operation);
            }
        }
        return ncclSystemError;
    }
    OFINET_WARN("%s: called before a successful init", operation);
    return ncclInternalError;
}

ncclResult_t ofinet_refuse_forked(const char *operation) {
    return no_java(operation);
}

/* Java's entry point for an operation; or an error when init has not succeeded, the JVM ends, or the process forked. */
#define JAVA_OR_FAIL(name)                                                                          \
    if (ofinet_java.name == NULL || atomic_load_explicit(&java_state, memory_order_relaxed)) {      \
        return no_java(#name);                                                                      \
    }

void ofinet_set_logger(ncclDebugLogger_t logFunction) {
    if (logFunction != NULL) {
        atomic_store_explicit(&nccl_logger, logFunction, memory_order_release);
    }
}

static atomic_int start_reported;

static double ms_between(int64_t from, int64_t to) {
    return (double)(to - from) / 1e6;
}

/*
 * What the start cost, said once, at the first init that succeeded: its stages as ofinet_boot
 * recorded them, and Java's part of this init (the plugin's init: libfabric loaded, the layout).
 */
static void report_start(int64_t java_begun, int64_t java_ended) {
    const struct ofinet_start_times *t = &ofinet_start_times;
    if (t->created == 0) {
        OFINET_INFO("init: ofinet started in %.1f ms in the JVM already running: ofinet's classes and bridge in"
                    " %.1f ms, Java's first init in %.1f ms", ms_between(t->begun, java_ended),
                    ms_between(t->begun, t->bridge), ms_between(java_begun, java_ended));
        return;
    }
    OFINET_INFO("init: ofinet started in %.1f ms: libjvm loaded in %.1f ms, the JVM created in %.1f ms, ofinet's"
                " classes and bridge in %.1f ms, Java's first init in %.1f ms", ms_between(t->begun, java_ended),
                ms_between(t->begun, t->libjvm), ms_between(t->libjvm, t->created),
                ms_between(t->created, t->bridge), ms_between(java_begun, java_ended));
}

ncclResult_t ofinet_init(void **ctx, uint64_t commId, ncclNetCommConfig_v12_t *config,
                                ncclDebugLogger_t logFunction, ncclProfilerCallback_t profFunction) {
    (void)profFunction;
    ofinet_set_logger(logFunction);
    if (atomic_load_explicit(&java_state, memory_order_relaxed) == JAVA_FORKED) {
        return no_java("init");
    }
    /*
     * Before the JVM's start: a child forked during it (which holds the start's lock) or after it
     * is told so at once, where it would otherwise wait for that lock, or for the JVM's threads,
     * for ever.
     */
    pthread_once(&exit_hook_once, register_exit_hook);
    char err[1024];
    ncclResult_t result = ofinet_boot(err, sizeof err);
    if (result != ncclSuccess) {
        OFINET_WARN("init: the JVM could not be started: %s", err);
        return result;
    }
    if (atomic_load_explicit(&java_state, memory_order_relaxed)) {
        return no_java("init");
    }
    int has_logger = atomic_load_explicit(&nccl_logger, memory_order_acquire) != NULL;
    int64_t java_begun = ofinet_now_ns();
    ncclResult_t java = (ncclResult_t)OFINET_CALL(init, ADDR(ctx), (int64_t)commId, ADDR(config), has_logger);
    if (java == ncclSuccess && atomic_exchange(&start_reported, 1) == 0) {
        report_start(java_begun, ofinet_now_ns());
    }
    return java;
}

ncclResult_t ofinet_finalize(void *ctx) {
    JAVA_OR_FAIL(finalize);
    return (ncclResult_t)OFINET_CALL(finalize, ADDR(ctx));
}

ncclResult_t ofinet_devices(int *ndev) {
    JAVA_OR_FAIL(devices);
    return (ncclResult_t)OFINET_CALL(devices, ADDR(ndev));
}

ncclResult_t ofinet_get_properties(int dev, ncclNetProperties_v12_t *props) {
    JAVA_OR_FAIL(getProperties);
    return (ncclResult_t)OFINET_CALL(getProperties, dev, ADDR(props));
}

ncclResult_t ofinet_listen(void *ctx, int dev, void *handle, void **listenComm) {
    JAVA_OR_FAIL(listen);
    return (ncclResult_t)OFINET_CALL(listen, ADDR(ctx), dev, ADDR(handle), ADDR(listenComm));
}

ncclResult_t ofinet_connect(void *ctx, int dev, void *handle, void **sendComm,
                                   ncclNetDeviceHandle_v12_t **sendDevComm) {
    (void)sendDevComm; /* no device offload: NCCL's pointer is left as it is */
    JAVA_OR_FAIL(connect);
    return (ncclResult_t)OFINET_CALL(connect, ADDR(ctx), dev, ADDR(handle), ADDR(sendComm));
}

ncclResult_t ofinet_accept(void *listenComm, void **recvComm, ncclNetDeviceHandle_v12_t **recvDevComm) {
    (void)recvDevComm;
    JAVA_OR_FAIL(accept);
    return (ncclResult_t)OFINET_CALL(accept, ADDR(listenComm), ADDR(recvComm));
}

ncclResult_t ofinet_reg_mr(void *comm, void *data, size_t size, int type, void **mhandle) {
    JAVA_OR_FAIL(regMr);
    return (ncclResult_t)OFINET_CALL(regMr, ADDR(comm), ADDR(data), (int64_t)size, type, ADDR(mhandle));
}

ncclResult_t ofinet_dereg_mr(void *comm, void *mhandle) {
    JAVA_OR_FAIL(deregMr);
    return (ncclResult_t)OFINET_CALL(deregMr, ADDR(comm), ADDR(mhandle));
}

ncclResult_t ofinet_isend(void *sendComm, void *data, size_t size, int tag, void *mhandle, void *phandle,
                                 void **request) {
    (void)phandle; /* the profiler's handle: ofinet reports no profiler events */
    JAVA_OR_FAIL(isend);
    return (ncclResult_t)OFINET_CALL(isend, ADDR(sendComm), ADDR(data), (int64_t)size, tag, ADDR(mhandle),
                                           ADDR(request));
}

ncclResult_t ofinet_irecv(void *recvComm, int n, void **data, size_t *sizes, int *tags, void **mhandles,
                                 void **phandles, void **request) {
    (void)phandles;
    JAVA_OR_FAIL(irecv);
    return (ncclResult_t)OFINET_CALL(irecv, ADDR(recvComm), n, ADDR(data), ADDR(sizes), ADDR(tags), ADDR(mhandles),
                                           ADDR(request));
}

ncclResult_t ofinet_iflush(void *recvComm, int n, void **data, int *sizes, void **mhandles, void **request) {
    JAVA_OR_FAIL(iflush);
    return (ncclResult_t)OFINET_CALL(iflush, ADDR(recvComm), n, ADDR(data), ADDR(sizes), ADDR(mhandles),
                                            ADDR(request));
}

ncclResult_t ofinet_test(void *request, int *done, int *sizes) {
    JAVA_OR_FAIL(test);
    return (ncclResult_t)OFINET_CALL(test, ADDR(request), ADDR(done), ADDR(sizes));
}

ncclResult_t ofinet_close_send(void *sendComm) {
    JAVA_OR_FAIL(closeSend);
    return (ncclResult_t)OFINET_CALL(closeSend, ADDR(sendComm));
}

ncclResult_t ofinet_close_recv(void *recvComm) {
    JAVA_OR_FAIL(closeRecv);
    return (ncclResult_t)OFINET_CALL(closeRecv, ADDR(recvComm));
}

ncclResult_t ofinet_close_listen(void *listenComm) {
    JAVA_OR_FAIL(closeListen);
    return (ncclResult_t)OFINET_CALL(closeListen, ADDR(listenComm));
}

/*
 * regMrDmaBuf (host memory only), getDeviceMr and irecvConsumed (device-offloaded networking),
 * makeVDevice (NIC fusion: ofinet's devices already stripe over several data rails) and setNetAttr
 * are NULL: NCCL reads NULL as "not offered", while an error from makeVDevice would fail its init.
 */
OFINET_EXPORT ncclNet_v12_t ncclNetPlugin_v12 = {
    .name = "ofinet",
    .init = ofinet_init,
    .devices = ofinet_devices,
    .getProperties = ofinet_get_properties,
    .listen = ofinet_listen,
    .connect = ofinet_connect,
    .accept = ofinet_accept,
    .regMr = ofinet_reg_mr,
    .regMrDmaBuf = NULL,
    .deregMr = ofinet_dereg_mr,
    .isend = ofinet_isend,
    .irecv = ofinet_irecv,
    .iflush = ofinet_iflush,
    .test = ofinet_test,
    .closeSend = ofinet_close_send,
    .closeRecv = ofinet_close_recv,
    .closeListen = ofinet_close_listen,
    .getDeviceMr = NULL,
    .irecvConsumed = NULL,
    .makeVDevice = NULL,
    .finalize = ofinet_finalize,
    .setNetAttr = NULL,
};
