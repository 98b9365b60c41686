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
 * The options that size a JVM the library creates for a guest in the host's process (docs/NCCL.md,
 * "The JVM's options"), into options[]: their count. They go before OFINET_JVM_OPTIONS, whose
 * later occurrence of an option wins; the collector and the heap's sizes are left out when the
 * user's options choose them, since HotSpot refuses two collectors or an initial heap over the
 * maximum; the initial heap's size and the young generation's go with the library's collector
 * only, and the young generation's also when the user's options size it.
 */
#define OFINET_GUEST_OPTIONS 11
int guest_options(const char **options);

/*
 * The options that hand a JVM of the JDK at home (Java feature) the AOT cache beside the library in
 * dir, into options[0..1] (the cache's option written into buf); returns how many, 0 when there is
 * no cache to use: OFINET_AOT_CACHE=off, OFINET_JVM_OPTIONS choosing an archive itself, none there,
 * a JDK older than 24, or one other than the JDK and jars it was made with. OFINET_AOT_CACHE=<file>
 * names another cache, which HotSpot alone checks.
 */
int aot_cache_options(const char *home, int feature, const char *dir, const char **options, char *buf, size_t len);

/*
 * Loads ofinet's bridge class and lets it fill ofinet_java: through the application class loader
 * when ofinet's jars are the JVM's class path, else through a class loader of its own over them.
 */
ncclResult_t load_bridge(struct boot *b, JNIEnv *env, int on_class_path);

#endif
