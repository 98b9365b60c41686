/*
 * The crossing into Java: ofinet's entry points, one per operation of the NCCL table, each an FFM
 * upcall stub that io.ofinet.nccl.NcclBridge makes once and hands to C by name. Every argument
 * crosses as int64_t (an address, a length, or an int widened), every result is an ncclResult_t
 * value. Java catches everything: no exception reaches C.
 *
 * Every entry has one C type, ofinet_entry, whatever it takes: FFM generates the classes of an
 * upcall once per function type, several milliseconds at init for each, so the entries share one
 * type. An entry's arguments come first, in the order OFINET_JAVA_ENTRIES lists them; the rest are 0
 * (OFINET_CALL pads them).
 */
#ifndef OFINET_JAVA_H
#define OFINET_JAVA_H

#include <stddef.h>
#include <stdint.h>

#include "nccl_abi.h"

/* X(name, arguments): the list the struct and the names handed to Java share. */
#define OFINET_JAVA_ENTRIES(X)                                                                        \
    X(init, (ctxOut, commId, config, ncclLogger))                                                     \
    X(finalize, (ctx))                                                                                \
    X(devices, (ndevOut))                                                                             \
    X(getProperties, (dev, propsOut))                                                                 \
    X(listen, (ctx, dev, handle, listenCommOut))                                                      \
    X(connect, (ctx, dev, handle, sendCommOut))                                                       \
    X(accept, (listenComm, recvCommOut))                                                              \
    X(regMr, (comm, data, size, type, mhandleOut))                                                    \
    X(deregMr, (comm, mhandle))                                                                       \
    X(isend, (comm, data, size, tag, mhandle, requestOut))                                            \
    X(irecv, (comm, n, data, sizes, tags, mhandles, requestOut))                                      \
    X(iflush, (comm, n, data, sizes, mhandles, requestOut))                                           \
    X(test, (request, doneOut, sizesOut))                                                             \
    X(closeSend, (comm))                                                                              \
    X(closeRecv, (comm))                                                                              \
    X(closeListen, (comm))                                                                            \
    X(atExit, ())

/* The one type of every entry: as many int64_t as the longest list above (irecv's). */
#define OFINET_ENTRY_ARGS 7
typedef int (*ofinet_entry)(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

#define OFINET_JAVA_FIELD(name, arguments) ofinet_entry name;
struct ofinet_java {
    OFINET_JAVA_ENTRIES(OFINET_JAVA_FIELD)
};
#undef OFINET_JAVA_FIELD

/* How many arguments a list above holds, from 0 to 16 (GNU C: `, ##` drops the comma of an empty list). */
#define OFINET_COUNT_(...) OFINET_NTH_(_, ##__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define OFINET_NTH_(z, a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q, n, ...) n

/* Each entry's count of arguments, OFINET_ARITY_<name>, from its list above. */
#define OFINET_JAVA_ARITY(name, arguments) OFINET_ARITY_##name = OFINET_COUNT_ arguments,
enum ofinet_java_arity { OFINET_JAVA_ENTRIES(OFINET_JAVA_ARITY) };
#undef OFINET_JAVA_ARITY

/*
 * Calls an entry with its arguments, widened to int64_t, and 0 for the rest: OFINET_CALL(test, a, b,
 * c). A call with another count of arguments than its entry's list does not compile (an array of
 * negative size), nor does a list longer than OFINET_ENTRY_ARGS (plugin.c's static assertions). An
 * entry without arguments is called as ofinet_java.name(0, 0, 0, 0, 0, 0, 0).
 */
#define OFINET_CALL(name, ...)                                                                        \
    ((void)sizeof(char[OFINET_COUNT_(__VA_ARGS__) == OFINET_ARITY_##name ? 1 : -1]),                  \
     ofinet_java.name(OFINET_PAD_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)))
#define OFINET_PAD_(a, b, c, d, e, f, g, ...)                                                         \
    (int64_t)(a), (int64_t)(b), (int64_t)(c), (int64_t)(d), (int64_t)(e), (int64_t)(f), (int64_t)(g)

/* Filled once by ofinet_boot; read-only afterwards. */
extern struct ofinet_java ofinet_java;

/*
 * When the library's start reached each of its stages, in ns of CLOCK_MONOTONIC (0: not reached),
 * recorded by ofinet_boot for the first init's log line: what a rank pays to start ofinet.
 */
struct ofinet_start_times {
    int64_t begun;   /* ofinet_boot began the start */
    int64_t libjvm;  /* the JDK checked and libjvm.so loaded (0: the JVM was already running) */
    int64_t created; /* JNI_CreateJavaVM returned (0: the JVM was already running) */
    int64_t bridge;  /* ofinet's class loader and classes loaded, the bridge's upcall stubs made */
};
extern struct ofinet_start_times ofinet_start_times;
int64_t ofinet_now_ns(void);

/*
 * Finds or creates the process's JVM and fills ofinet_java, once per process. On failure returns
 * an ncclResult_t error and writes why into err; later calls fail the same way at once.
 */
ncclResult_t ofinet_boot(char *err, size_t errlen);

/* A log line: through NCCL's logger when init handed one, else on stderr (INFO only when OFINET_DEBUG is set). */
void ofinet_log(int level, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define OFINET_WARN(...) ofinet_log(NCCL_LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define OFINET_INFO(...) ofinet_log(NCCL_LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)

/* Called by Java (a function pointer handed over at boot) for its own log lines. */
void ofinet_log_from_java(int level, const char *message);

/* Called by Java from a JVM shutdown hook (a function pointer handed over at boot): from then on no
 * call may enter the JVM, which is going away (a host JVM that ends, or System.exit). */
void ofinet_jvm_ending(void);

#endif
