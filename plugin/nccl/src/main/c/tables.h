/* The v12 operations (plugin.c), which the older tables (tables.c) adapt. Hidden, like all but the tables. */
#ifndef OFINET_TABLES_H
#define OFINET_TABLES_H

#include "nccl_abi.h"

#define OFINET_EXPORT __attribute__((visibility("default")))

ncclResult_t ofinet_init(void **ctx, uint64_t commId, ncclNetCommConfig_v12_t *config, ncclDebugLogger_t logFunction,
                         ncclProfilerCallback_t profFunction);
ncclResult_t ofinet_finalize(void *ctx);
ncclResult_t ofinet_devices(int *ndev);
ncclResult_t ofinet_get_properties(int dev, ncclNetProperties_v12_t *props);
ncclResult_t ofinet_listen(void *ctx, int dev, void *handle, void **listenComm);
ncclResult_t ofinet_connect(void *ctx, int dev, void *handle, void **sendComm, ncclNetDeviceHandle_v12_t **sendDevComm);
ncclResult_t ofinet_accept(void *listenComm, void **recvComm, ncclNetDeviceHandle_v12_t **recvDevComm);
ncclResult_t ofinet_reg_mr(void *comm, void *data, size_t size, int type, void **mhandle);
ncclResult_t ofinet_dereg_mr(void *comm, void *mhandle);
ncclResult_t ofinet_isend(void *sendComm, void *data, size_t size, int tag, void *mhandle, void *phandle,
                          void **request);
ncclResult_t ofinet_irecv(void *recvComm, int n, void **data, size_t *sizes, int *tags, void **mhandles,
                          void **phandles, void **request);
ncclResult_t ofinet_iflush(void *recvComm, int n, void **data, int *sizes, void **mhandles, void **request);
ncclResult_t ofinet_test(void *request, int *done, int *sizes);
ncclResult_t ofinet_close_send(void *sendComm);
ncclResult_t ofinet_close_recv(void *recvComm);
ncclResult_t ofinet_close_listen(void *listenComm);

/*
 * Whether this process was forked from the one ofinet's JVM runs in (whose threads it does not have);
 * from the first call on, a fork() is noticed in the child.
 */
int ofinet_forked(void);

/* The answer to operation in a forked child (ncclSystemError, and a warning the first time). */
ncclResult_t ofinet_refuse_forked(const char *operation);

/* Makes logFunction the logger of ofinet's lines (when not NULL). */
void ofinet_set_logger(ncclDebugLogger_t logFunction);

#endif
