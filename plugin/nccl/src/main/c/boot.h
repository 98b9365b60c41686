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

/* The directory this library was loaded from, its real path; -1 when it cannot be found. */
int library_dir(char *out, size_t len);

/* The jars in <dir>/ofinet as paths, sorted by name; returns how many, or -1. Free each. */
int list_jars(const char *dir, char **jars, int max);
#define OFINET_MAX_JARS 64

/*
 * "-Djava.class.path=" and the jars in <dir>/ofinet, for a JVM the library creates (malloc'd: free
 * it); NULL when they cannot be a class path (none, unreadable, a path holding ':', no memory).
 */
char *class_path_option(const char *dir);

/*
 * Loads ofinet's bridge class and lets it fill ofinet_java: through the application class loader
 * when ofinet's jars are the JVM's class path, else through a class loader of its own over them.
 */
ncclResult_t load_bridge(struct boot *b, JNIEnv *env, int on_class_path);

#endif
