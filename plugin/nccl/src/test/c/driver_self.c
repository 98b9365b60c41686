/*
 * A process's connection to itself through the table, as train, proxies, fork and hostjvm make it:
 * the table with a context, the connection, and a message over it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "driver.h"

ncclNet_v12_t *table_and_context(void **ctx) {
    ncclNet_v12_t *net = load_table();
    *ctx = NULL;
    if (net == NULL || net->init(ctx, 1, comm_config(), driver_logger, NULL) != ncclSuccess) {
        check(0, "init");
        return NULL;
    }
    return net;
}

int connect_self(ncclNet_v12_t *net, void *ctx, void *handle, void *listen, void **send, void **recv) {
    *send = NULL;
    *recv = NULL;
    double deadline = now_seconds() + WAIT_SECONDS;
    while ((*send == NULL || *recv == NULL) && now_seconds() < deadline) {
        if ((*send == NULL && net->connect(ctx, 0, handle, send, NULL) != ncclSuccess) ||
            (*recv == NULL && net->accept(listen, recv, NULL) != ncclSuccess)) {
            break;
        }
    }
    return *send != NULL && *recv != NULL;
}

int self_message(ncclNet_v12_t *net, void *send, void *recv, void *smr, void *rmr, const unsigned char *out,
                 unsigned char *in, size_t size, size_t capacity, int tag) {
    void *sreq = NULL, *rreq = NULL, *data = in;
    int rtag = tag, got = -1;
    double deadline = now_seconds() + WAIT_SECONDS;
    while (rreq == NULL && now_seconds() < deadline) {
        if (net->irecv(recv, 1, &data, &capacity, &rtag, &rmr, NULL, &rreq) != ncclSuccess) {
            return 0;
        }
    }
    while (sreq == NULL && now_seconds() < deadline) {
        if (net->isend(send, (void *)out, size, tag, smr, NULL, &sreq) != ncclSuccess) {
            return 0;
        }
    }
    return sreq != NULL && rreq != NULL && await_request(net, sreq, NULL, WAIT_SECONDS) == ncclSuccess &&
           await_request(net, rreq, &got, WAIT_SECONDS) == ncclSuccess && got == (int)size &&
           memcmp(out, in, size) == 0;
}

int self_round_trip(ncclNet_v12_t *net, void *ctx, void *handle, void *listen, size_t bytes) {
    unsigned char *out = malloc(bytes), *in = malloc(bytes);
    void *send = NULL, *recv = NULL, *smr = NULL, *rmr = NULL;
    int ok = 0;
    if (out != NULL && in != NULL && connect_self(net, ctx, handle, listen, &send, &recv) &&
        net->regMr(send, out, bytes, NCCL_PTR_HOST, &smr) == ncclSuccess &&
        net->regMr(recv, in, bytes, NCCL_PTR_HOST, &rmr) == ncclSuccess) {
        fill_pattern(out, bytes, 7);
        ok = self_message(net, send, recv, smr, rmr, out, in, bytes, bytes, 7);
    }
    ok &= smr == NULL || net->deregMr(send, smr) == ncclSuccess;
    ok &= rmr == NULL || net->deregMr(recv, rmr) == ncclSuccess;
    ok &= send == NULL || net->closeSend(send) == ncclSuccess;
    ok &= recv == NULL || net->closeRecv(recv) == ncclSuccess;
    free(out);
    free(in);
    return ok;
}
