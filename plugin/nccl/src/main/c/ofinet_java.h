/*
 * The crossing into Java: ofinet's entry points, one per operation of the NCCL table, each an FFM
 * upcall stub that io.ofinet.nccl.NcclBridge makes once and hands to C by name. Every pointer and
 * size crosses as int64_t (an address or a length; Java reads and writes C memory through it),
 * every result is an ncclResult_t value. Java catches everything: no exception reaches C.
 */
#ifndef OFINET_JAVA_H
#define OFINET_JAVA_H

#include <stddef.h>
#include <stdint.h>

#include "nccl_abi.h"

/* X(name, parameters): the list the struct, the names handed to Java and the forwarders share. */
#define OFINET_JAVA_ENTRIES(X)                                                                        \
    X(init, (int64_t ctxOut, int64_t commId, int64_t config, int ncclLogger))                         \
    X(finalize, (int64_t ctx))                                                                        \
    X(devices, (int64_t ndevOut))                                                                     \
    X(getProperties, (int dev, int64_t propsOut))                                                     \
    X(listen, (int64_t ctx, int dev, int64_t handle, int64_t listenCommOut))                          \
    X(connect, (int64_t ctx, int dev, int64_t handle, int64_t sendCommOut))                           \
    X(accept, (int64_t listenComm, int64_t recvCommOut))                                              \
    X(regMr, (int64_t comm, int64_t data, int64_t size, int type, int64_t mhandleOut))                \
    X(deregMr, (int64_t comm, int64_t mhandle))                                                       \
    X(isend, (int64_t comm, int64_t data, int64_t size, int tag, int64_t mhandle, int64_t requestOut)) \
    X(irecv, (int64_t comm, int n, int64_t data, int64_t sizes, int64_t tags, int64_t mhandles,       \
              int64_t requestOut))                                                                    \
    X(iflush, (int64_t comm, int n, int64_t data, int64_t sizes, int64_t mhandles, int64_t requestOut)) \
    X(test, (int64_t request, int64_t doneOut, int64_t sizesOut))                                     \
    X(closeSend, (int64_t comm))                                                                      \
    X(closeRecv, (int64_t comm))                                                                      \
    X(closeListen, (int64_t comm))                                                                    \
    X(atExit, (void))

#define OFINET_JAVA_FIELD(name, params) int (*name) params;
struct ofinet_java {
    OFINET_JAVA_ENTRIES(OFINET_JAVA_FIELD)
};
#undef OFINET_JAVA_FIELD

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
