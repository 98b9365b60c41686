/*
 * nccl_driver train [ROUNDS]: the calls NCCL makes while it starts and moves data, in one process
 * over a connection to itself (init, devices, getProperties, listen, connect, accept, regMr,
 * isend, irecv, test, iflush, deregMr, the closes, finalize), ROUNDS messages of each size; then
 * the JVM ends through System.exit, so that what it was told to write at its exit is written.
 *
 * The build runs it with -XX:AOTCacheOutput in OFINET_JVM_OPTIONS to make the AOT cache the
 * library ships (src/main/sh/aot-cache.sh; docs/NCCL.md, "The AOT cache"). NCCL never ends the JVM: a
 * host that exits skips the JVM's exit, and with it the cache's dump.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define TRAIN_BYTES (1 * MiB)
/*
 * Messages of each size: enough for the data path's methods to reach C2 in the run, so that the
 * cache holds their full profiles (JEP 515). With 200, a rank compiled 2.5 times as many methods
 * after connect behind the warm-up (docs/measurements/2026-11-29-the-aot-cache-s-training-run.md).
 */
#define TRAIN_ROUNDS 5000

typedef jint(JNICALL *created_vms_fn)(JavaVM **, jsize, jsize *);

/* Ends the JVM the library created through System.exit(code); returns only when it cannot. */
static void exit_through_java(int code) {
    created_vms_fn created = (created_vms_fn)dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
    JavaVM *vm = NULL;
    JNIEnv *env = NULL;
    jsize n = 0;
    if (created == NULL || created(&vm, 1, &n) != JNI_OK || n < 1 ||
        (*vm)->AttachCurrentThread(vm, (void **)&env, NULL) != JNI_OK) {
        check(0, "the JVM the library created, found to end it");
        return;
    }
    jclass system = (*env)->FindClass(env, "java/lang/System");
    jmethodID exit_method = system == NULL ? NULL : (*env)->GetStaticMethodID(env, system, "exit", "(I)V");
    if (exit_method == NULL) {
        check(0, "java.lang.System.exit, found to end the JVM");
        return;
    }
    fflush(stdout);
    (*env)->CallStaticVoidMethod(env, system, exit_method, (jint)code);
    check(0, "System.exit returned");
}

int run_train(int argc, char **argv) {
    driver_side = "train";
    int rounds = argc >= 1 ? atoi(argv[0]) : TRAIN_ROUNDS;
    if (rounds < 1) {
        fprintf(stderr, "train: ROUNDS must be a positive number, not %s\n", argv[0]);
        return 2;
    }
    void *ctx = NULL;
    ncclNet_v12_t *net = table_and_context(&ctx);
    if (net == NULL) {
        return 1;
    }
    int ndev = 0;
    ncclNetProperties_v12_t props;
    check(net->devices(&ndev) == ncclSuccess && ndev >= 1 && net->getProperties(0, &props) == ncclSuccess,
          "devices and getProperties");
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    void *listen = NULL, *send = NULL, *recv = NULL, *smr = NULL, *rmr = NULL;
    unsigned char *out = malloc(TRAIN_BYTES), *in = malloc(TRAIN_BYTES);
    if (out == NULL || in == NULL || net->listen(ctx, 0, handle, &listen) != ncclSuccess) {
        check(0, "listen");
        return 1;
    }
    check(connect_self(net, ctx, handle, listen, &send, &recv), "connect and accept to itself");
    if (send == NULL || recv == NULL || net->regMr(send, out, TRAIN_BYTES, NCCL_PTR_HOST, &smr) != ncclSuccess ||
        net->regMr(recv, in, TRAIN_BYTES, NCCL_PTR_HOST, &rmr) != ncclSuccess) {
        check(0, "regMr");
        return 1;
    }
    static const size_t sizes[] = {8, 4096, 65536, TRAIN_BYTES};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        fill_pattern(out, sizes[s], (unsigned)s);
        int failed = 0;
        for (int i = 0; i < rounds && !failed; i++) {
            failed = !self_message(net, send, recv, smr, rmr, out, in, sizes[s], TRAIN_BYTES, (int)s);
        }
        check(!failed, "%d messages of %zu bytes, each tested to done and intact", rounds, sizes[s]);
    }
    void *flush = NULL;
    void *data = in;
    int size = 8;
    ncclResult_t r = net->iflush(recv, 1, &data, &size, &rmr, &flush);
    check(r == ncclSuccess && (flush == NULL || await_request(net, flush, NULL, WAIT_SECONDS) == ncclSuccess), "iflush");
    check(net->deregMr(send, smr) == ncclSuccess && net->deregMr(recv, rmr) == ncclSuccess, "deregMr");
    check(net->closeSend(send) == ncclSuccess && net->closeRecv(recv) == ncclSuccess &&
              net->closeListen(listen) == ncclSuccess, "closeSend, closeRecv, closeListen");
    check(net->finalize(ctx) == ncclSuccess, "finalize");
    free(out);
    free(in);
    printf("train: %d checks passed, %d failed\n", driver_passed, driver_failed);
    exit_through_java(driver_failed == 0 ? 0 : 1);
    return 1;
}
