/* What jvm.c (the JVM) and bridge.c (ofinet's classes in it) share while the library starts. */
#ifndef OFINET_BOOT_H
#define OFINET_BOOT_H

#include <jni.h>
#include <stddef.h>

#include "nccl_abi.h"

/* The outcome of the start, filled on the thread that starts the JVM. */
struct boot {
    ncclResult_t result;
    char err[1024];
};

/* Records a failure in b and returns its result. */
ncclResult_t boot_fail(struct boot *b, ncclResult_t result, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* out = a/b; -1 when it does not fit. */
int join_path(char *out, size_t len, const char *a, const char *b);

/* Loads ofinet's bridge class through its own class loader and lets it fill ofinet_java. */
ncclResult_t load_bridge(struct boot *b, JNIEnv *env);

#endif
