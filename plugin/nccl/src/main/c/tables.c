/*
 * ncclNetPlugin_v11 ... v6: thin adapters over the v12 operations, for NCCL releases that look for
 * an older table. Below v11 NCCL has one process-wide init and never finalizes: those tables share
 * contexts made once per traffic class (v10 passes a configuration to connect) and kept for the
 * process's life, so an init again after NCCL reloaded the library is harmless. Sizes that an
 * older version carries as int are checked and widened; properties are narrowed to the version's
 * struct field by field (below v12 a virtual device holds 4 devices, not 8, so the fields after it
 * sit elsewhere).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include "ofinet_java.h"
#include "tables.h"

#define MAX_TRAFFIC_CLASSES 16

static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static int context_classes[MAX_TRAFFIC_CLASSES];
static void *contexts[MAX_TRAFFIC_CLASSES];
static int context_count;

/* The shared context for connections of traffic class tc, made on first use by operation (for messages). */
static ncclResult_t shared_context(int tc, void **ctx, const char *operation) {
    /*
     * A forked child is refused by init at once: under the lock it could wait for ever (a thread of
     * the parent held it across the JVM's start), or find the parent's context made already. The
     * check registers the fork handler before the lock is first taken.
     */
    if (ofinet_forked()) {
        *ctx = NULL;
        return ofinet_refuse_forked(operation);
    }
    ncclResult_t result = ncclSuccess;
    pthread_mutex_lock(&contexts_lock);
    int i = 0;
    while (i < context_count && context_classes[i] != tc) {
        i++;
    }
    if (i == context_count) {
        if (context_count == MAX_TRAFFIC_CLASSES) {
            OFINET_WARN("connect: more than %d traffic classes", MAX_TRAFFIC_CLASSES);
            result = ncclInternalError;
        } else {
            ncclNetCommConfig_v12_t config = {.trafficClass = tc};
            result = ofinet_init(&contexts[i], 0, &config, NULL, NULL);
            if (result == ncclSuccess) {
                context_classes[i] = tc;
                context_count++;
            }
        }
    }
    *ctx = result == ncclSuccess ? contexts[i] : NULL;
    pthread_mutex_unlock(&contexts_lock);
    return result;
}

static ncclResult_t legacy_init(ncclDebugLogger_t logFunction, ncclProfilerCallback_t profFunction) {
    (void)profFunction;
    ofinet_set_logger(logFunction);
    void *ctx;
    return shared_context(NCCL_NET_TRAFFIC_CLASS_UNDEF, &ctx, "init");
}

static ncclResult_t legacy_init_logger(ncclDebugLogger_t logFunction) {
    return legacy_init(logFunction, NULL);
}

static ncclResult_t legacy_listen(int dev, void *handle, void **listenComm) {
    void *ctx;
    ncclResult_t r = shared_context(NCCL_NET_TRAFFIC_CLASS_UNDEF, &ctx, "listen");
    return r != ncclSuccess ? r : ofinet_listen(ctx, dev, handle, listenComm);
}

static ncclResult_t v10_connect(int dev, ncclNetCommConfig_v10_t *config, void *handle, void **sendComm,
                                ncclNetDeviceHandle_v12_t **sendDevComm) {
    void *ctx;
    ncclResult_t r = shared_context(config != NULL ? config->trafficClass : NCCL_NET_TRAFFIC_CLASS_UNDEF, &ctx,
                                    "connect");
    return r != ncclSuccess ? r : ofinet_connect(ctx, dev, handle, sendComm, sendDevComm);
}

static ncclResult_t legacy_connect(int dev, void *handle, void **sendComm, ncclNetDeviceHandle_v12_t **sendDevComm) {
    return v10_connect(dev, NULL, handle, sendComm, sendDevComm);
}

static ncclResult_t v6_connect(int dev, void *handle, void **sendComm) {
    return legacy_connect(dev, handle, sendComm, NULL);
}

static ncclResult_t v6_accept(void *listenComm, void **recvComm) {
    return ofinet_accept(listenComm, recvComm, NULL);
}

static ncclResult_t v9_isend(void *sendComm, void *data, size_t size, int tag, void *mhandle, void **request) {
    return ofinet_isend(sendComm, data, size, tag, mhandle, NULL, request);
}

static ncclResult_t v9_irecv(void *recvComm, int n, void **data, size_t *sizes, int *tags, void **mhandles,
                             void **request) {
    return ofinet_irecv(recvComm, n, data, sizes, tags, mhandles, NULL, request);
}

static ncclResult_t negative(const char *operation, int size) {
    OFINET_WARN("%s: a size of %d bytes", operation, size);
    return ncclInternalError;
}

static ncclResult_t v8_isend(void *sendComm, void *data, int size, int tag, void *mhandle, void **request) {
    return size < 0 ? negative("isend", size) : ofinet_isend(sendComm, data, (size_t)size, tag, mhandle, NULL, request);
}

static ncclResult_t v8_irecv(void *recvComm, int n, void **data, int *sizes, int *tags, void **mhandles,
                             void **request) {
    size_t wide[NCCL_NET_MAX_DEVS_PER_NIC_V12];
    if (n < 1 || n > (int)(sizeof wide / sizeof wide[0]) || sizes == NULL) {
        /* The v12 operation refuses the count or the NULL, and says so. */
        return ofinet_irecv(recvComm, n, data, sizes == NULL ? NULL : wide, tags, mhandles, NULL, request);
    }
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) {
            return negative("irecv", sizes[i]);
        }
        wide[i] = (size_t)sizes[i];
    }
    return ofinet_irecv(recvComm, n, data, wide, tags, mhandles, NULL, request);
}

static ncclResult_t v7_reg_mr(void *comm, void *data, int size, int type, void **mhandle) {
    return size < 0 ? negative("regMr", size) : ofinet_reg_mr(comm, data, (size_t)size, type, mhandle);
}

/* The v12 properties, to narrow. */
static ncclResult_t properties(int dev, ncclNetProperties_v12_t *p, void *out) {
    if (out == NULL) {
        return ofinet_get_properties(dev, NULL);
    }
    return ofinet_get_properties(dev, p);
}

/* v12's virtual device in the 4 slots of v9 ... v11's; one of more devices cannot be told there. */
static ncclResult_t narrow_vprops(int dev, const ncclNetVDeviceProps_v12_t *from, ncclNetVDeviceProps_v11_t *to) {
    if (from->ndevs < 0 || from->ndevs > NCCL_NET_MAX_DEVS_PER_NIC_V11) {
        OFINET_WARN("getProperties: device %d fuses %d devices; this NCCL's interface holds at most %d", dev,
                    from->ndevs, NCCL_NET_MAX_DEVS_PER_NIC_V11);
        return ncclInternalError;
    }
    *to = (ncclNetVDeviceProps_v11_t){.ndevs = from->ndevs};
    memcpy(to->devs, from->devs, (size_t)from->ndevs * sizeof to->devs[0]);
    return ncclSuccess;
}

static ncclResult_t v11_get_properties(int dev, ncclNetProperties_v11_t *props) {
    ncclNetProperties_v12_t p;
    ncclResult_t r = properties(dev, &p, props);
    ncclNetVDeviceProps_v11_t v;
    if (r == ncclSuccess && (r = narrow_vprops(dev, &p.vProps, &v)) == ncclSuccess) {
        *props = (ncclNetProperties_v11_t){p.name, p.pciPath, p.guid, p.ptrSupport, p.regIsGlobal, p.forceFlush,
                                           p.speed, p.port, p.latency, p.maxComms, p.maxRecvs, p.netDeviceType,
                                           p.netDeviceVersion, v, p.maxP2pBytes, p.maxCollBytes,
                                           p.maxMultiRequestSize};
    }
    return r;
}

static ncclResult_t v10_get_properties(int dev, ncclNetProperties_v10_t *props) {
    ncclNetProperties_v12_t p;
    ncclResult_t r = properties(dev, &p, props);
    ncclNetVDeviceProps_v11_t v;
    if (r == ncclSuccess && (r = narrow_vprops(dev, &p.vProps, &v)) == ncclSuccess) {
        *props = (ncclNetProperties_v10_t){p.name, p.pciPath, p.guid, p.ptrSupport, p.regIsGlobal, p.forceFlush,
                                           p.speed, p.port, p.latency, p.maxComms, p.maxRecvs, p.netDeviceType,
                                           p.netDeviceVersion, v, p.maxP2pBytes, p.maxCollBytes};
    }
    return r;
}

static ncclResult_t v8_get_properties(int dev, ncclNetProperties_v8_t *props) {
    ncclNetProperties_v12_t p;
    ncclResult_t r = properties(dev, &p, props);
    if (r == ncclSuccess) {
        *props = (ncclNetProperties_v8_t){p.name, p.pciPath, p.guid, p.ptrSupport, p.regIsGlobal, p.speed, p.port,
                                          p.latency, p.maxComms, p.maxRecvs, p.netDeviceType, p.netDeviceVersion};
    }
    return r;
}

static ncclResult_t v7_get_properties(int dev, ncclNetProperties_v7_t *props) {
    ncclNetProperties_v12_t p;
    ncclResult_t r = properties(dev, &p, props);
    if (r == ncclSuccess) {
        *props = (ncclNetProperties_v7_t){p.name, p.pciPath, p.guid, p.ptrSupport, p.speed, p.port, p.latency,
                                          p.maxComms, p.maxRecvs, p.netDeviceType, p.netDeviceVersion};
    }
    return r;
}

static ncclResult_t v6_get_properties(int dev, ncclNetProperties_v6_t *props) {
    ncclNetProperties_v12_t p;
    ncclResult_t r = properties(dev, &p, props);
    if (r == ncclSuccess) {
        *props = (ncclNetProperties_v6_t){p.name, p.pciPath, p.guid, p.ptrSupport, p.speed, p.port, p.latency,
                                          p.maxComms, p.maxRecvs};
    }
    return r;
}

OFINET_EXPORT ncclNet_v11_t ncclNetPlugin_v11 = {
    .name = "ofinet", .init = ofinet_init, .devices = ofinet_devices, .getProperties = v11_get_properties,
    .listen = ofinet_listen, .connect = ofinet_connect, .accept = ofinet_accept, .regMr = ofinet_reg_mr,
    .regMrDmaBuf = NULL, .deregMr = ofinet_dereg_mr, .isend = ofinet_isend, .irecv = ofinet_irecv,
    .iflush = ofinet_iflush, .test = ofinet_test, .closeSend = ofinet_close_send, .closeRecv = ofinet_close_recv,
    .closeListen = ofinet_close_listen, .getDeviceMr = NULL, .irecvConsumed = NULL, .makeVDevice = NULL,
    .finalize = ofinet_finalize, .setNetAttr = NULL,
};

OFINET_EXPORT ncclNet_v10_t ncclNetPlugin_v10 = {
    .name = "ofinet", .init = legacy_init, .devices = ofinet_devices, .getProperties = v10_get_properties,
    .listen = legacy_listen, .connect = v10_connect, .accept = ofinet_accept, .regMr = ofinet_reg_mr,
    .regMrDmaBuf = NULL, .deregMr = ofinet_dereg_mr, .isend = ofinet_isend, .irecv = ofinet_irecv,
    .iflush = ofinet_iflush, .test = ofinet_test, .closeSend = ofinet_close_send, .closeRecv = ofinet_close_recv,
    .closeListen = ofinet_close_listen, .getDeviceMr = NULL, .irecvConsumed = NULL, .makeVDevice = NULL,
};

OFINET_EXPORT ncclNet_v9_t ncclNetPlugin_v9 = {
    .name = "ofinet", .init = legacy_init_logger, .devices = ofinet_devices,
    .getProperties = v10_get_properties, .listen = legacy_listen,
    .connect = legacy_connect, .accept = ofinet_accept, .regMr = ofinet_reg_mr, .regMrDmaBuf = NULL,
    .deregMr = ofinet_dereg_mr, .isend = v9_isend, .irecv = v9_irecv, .iflush = ofinet_iflush, .test = ofinet_test,
    .closeSend = ofinet_close_send, .closeRecv = ofinet_close_recv, .closeListen = ofinet_close_listen,
    .getDeviceMr = NULL, .irecvConsumed = NULL, .makeVDevice = NULL,
};

OFINET_EXPORT ncclNet_v8_t ncclNetPlugin_v8 = {
    .name = "ofinet", .init = legacy_init_logger, .devices = ofinet_devices, .getProperties = v8_get_properties,
    .listen = legacy_listen, .connect = legacy_connect, .accept = ofinet_accept, .regMr = ofinet_reg_mr,
    .regMrDmaBuf = NULL, .deregMr = ofinet_dereg_mr, .isend = v8_isend, .irecv = v8_irecv,
    .iflush = ofinet_iflush, .test = ofinet_test, .closeSend = ofinet_close_send, .closeRecv = ofinet_close_recv,
    .closeListen = ofinet_close_listen, .getDeviceMr = NULL, .irecvConsumed = NULL,
};

OFINET_EXPORT ncclNet_v7_t ncclNetPlugin_v7 = {
    .name = "ofinet", .init = legacy_init_logger, .devices = ofinet_devices, .getProperties = v7_get_properties,
    .listen = legacy_listen, .connect = legacy_connect, .accept = ofinet_accept, .regMr = v7_reg_mr,
    .regMrDmaBuf = NULL, .deregMr = ofinet_dereg_mr, .isend = v8_isend, .irecv = v8_irecv,
    .iflush = ofinet_iflush, .test = ofinet_test, .closeSend = ofinet_close_send, .closeRecv = ofinet_close_recv,
    .closeListen = ofinet_close_listen, .getDeviceMr = NULL, .irecvConsumed = NULL,
};

OFINET_EXPORT ncclNet_v6_t ncclNetPlugin_v6 = {
    .name = "ofinet", .init = legacy_init_logger, .devices = ofinet_devices, .getProperties = v6_get_properties,
    .listen = legacy_listen, .connect = v6_connect, .accept = v6_accept, .regMr = v7_reg_mr,
    .regMrDmaBuf = NULL, .deregMr = ofinet_dereg_mr, .isend = v8_isend, .irecv = v8_irecv,
    .iflush = ofinet_iflush, .test = ofinet_test, .closeSend = ofinet_close_send, .closeRecv = ofinet_close_recv,
    .closeListen = ofinet_close_listen,
};
