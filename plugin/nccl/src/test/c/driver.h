/*
 * The test driver of libnccl-net-ofinet.so: it loads the library the way NCCL does (the name
 * NCCL_NET_PLUGIN gives, ofinet when unset, dlopen'ed as written, then as libnccl-net-<name>.so
 * through the library search path; dlsym of ncclNetPlugin_v12) and drives the table. Each check
 * prints "ok: ..." or "FAILED: ..."; the process exits 0 when none failed.
 */
#ifndef OFINET_DRIVER_H
#define OFINET_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "nccl_abi.h"

/* Checks and their counts. */
extern int driver_passed;
extern int driver_failed;
void check(int condition, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The side running, for messages: "send" or "recv". */
extern const char *driver_side;

/* The last WARN line the driver's NCCL logger received. */
const char *last_warning(void);
/* Whether the logger received ofinet's init line (its device's rails) at INFO with the NET flag. */
int saw_init_line(void);
/* The JVM's live threads, as the latest finalize logged them; -1 before. */
int live_jvm_threads(void);
/* Forgets the last readings of the two above (-1 until finalize logs them again). */
void forget_java_readings(void);
/* The bytes Java allocated on this thread, as the latest finalize on it logged them; -1 before. */
long long java_allocated_on_this_thread(void);
/* The library's line on what its start cost ("init: ofinet started in ..."), and Java's on the plugin's init; "" before. */
const char *start_line(void);
const char *plugin_init_line(void);
void driver_logger(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);

/* The library NCCL_NET_PLUGIN names (ofinet when unset), opened as NCCL opens it; NULL (and a FAILED line) when it cannot. */
void *open_plugin(void);
/* Loads the library as NCCL does and finds its v12 table; NULL (and a FAILED line) when it cannot. */
ncclNet_v12_t *load_table(void);
/* Whether the table is ofinet's (its name), not another plugin's run under the driver. */
int is_ofinet(const ncclNet_v12_t *net);
/* The table's name, or "(none)" where it has none. */
const char *table_name(const ncclNet_v12_t *net);

/* The communicator configuration NCCL hands every init: no traffic class. Some plugins read it. */
ncclNetCommConfig_v12_t *comm_config(void);

/*
 * The tests' time factor (NCCL_DRIVER_TIME_FACTOR, which the Java tests pass on from
 * ofinet.test.timeFactor; 1 when unset): it scales the driver's slack bounds, never a property's.
 */
double time_factor(void);
/* Seconds since an arbitrary start. */
double now_seconds(void);

/*
 * Polling as ofinet-perf's Java loop waits, so that the two measure the same wait: after IDLE_POLLS
 * polls in a row that found nothing, a yield after each (NCCL's proxy thread yields after every pass
 * that progressed nothing). The clock is read only then, as a proxy's poll reads none. Call
 * idle_poll after a poll that found nothing (it returns 0 once the deadline has passed; a deadline
 * of 0 is set `seconds` after the first reading) and zero `idle` after one that progressed.
 */
#define IDLE_POLLS 200
struct idle_polls {
    int idle;
    double deadline;
    double seconds;
};
int idle_poll(struct idle_polls *w);

/* Calls test until done or an error; returns the result (ncclSystemError on the deadline). */
ncclResult_t await_request(ncclNet_v12_t *net, void *request, int *sizes, double seconds);

/*
 * The embedded JVM's compilers (driver_jit.c): the ns this process's JIT compiler threads ran or
 * waited on a run queue (-1 when there are none to see); whether they have done less than
 * JIT_SLACK_NS of that over the last JIT_QUIET_SECONDS with none runnable at a reading (one
 * waiting for a CPU counts as at work: the run queue's ns show only once it gets one); whether
 * they did more since a reading, or one is runnable now. jit_watch_check: the watch's own check
 * (mode jitwatch), with stand-in compiler threads.
 */
#define JIT_SLACK_NS 5000000LL
#define JIT_QUIET_SECONDS 0.5
struct jit_watch {
    long long seen; /* -1 before the first reading */
    double quiet_since;
};
long long jit_compiler_ns(void);
int jit_quiet(struct jit_watch *w, double now);
int jit_worked_since(long long before);
int jit_watch_check(void);

/* This process as /proc shows it (driver_memory.c): a field of /proc/self/status (VmRSS in kB, Threads), -1 if absent. */
long status_field(const char *name);
/* A field of /proc/self/smaps_rollup (Pss in kB, summed by the kernel in one pass), -1 if absent. */
long rollup_field(const char *name);
/* Resident memory by kind of mapping, in kB, from /proc/self/smaps; Pss and private memory in all. 0 on success. */
enum mapping_kind { MAP_LIBJVM, MAP_AOT, MAP_MODULES, MAP_LIBFABRIC, MAP_FILES, MAP_ANONYMOUS, MAP_KINDS };
struct resident {
    long kb[MAP_KINDS];
    long pss_kb;
    long private_kb;
};
int resident_by_kind(struct resident *out);

/* Bytes of a message: a pattern of its seed, and whether a buffer holds it. */
void fill_pattern(unsigned char *p, size_t n, unsigned seed);
int has_pattern(const unsigned char *p, size_t n, unsigned seed);

/* The struct layout checks; the pair run (argv: [--thread]); the lifecycle runs (driver_lifecycle.c). */
int run_layout(void);
int run_pair(int on_thread);
int run_versions(void);
int run_reload(void);
int run_teardown(void);
int run_exit(void);
int run_threads(void);
int run_kill(void);
int run_bench(int argc, char **argv);
/* What a rank pays for ofinet, from dlopen on (driver_startup.c). */
int run_startup(int argc, char **argv);
/* Sends meeting receive buffers by tag and ordinal in interleaved orders (driver_tags.c); argv: scenarios. */
int run_tags(int argc, char **argv);
/* NCCL's calls in one process, then the JVM ended through System.exit (driver_train.c); argv: [ROUNDS]. */
int run_train(int argc, char **argv);
/* A process's connection to itself (driver_self.c): the table with a context (NULL, with a failed check, when init fails). */
ncclNet_v12_t *table_and_context(void **ctx);
/* Connects send to listen's handle and accepts recv, within WAIT_SECONDS; whether both are connected. */
int connect_self(ncclNet_v12_t *net, void *ctx, void *handle, void *listen, void **send, void **recv);
/* One message of size bytes from out over send into in (capacity bytes) over recv, both tested to done; whether it arrived intact. */
int self_message(ncclNet_v12_t *net, void *send, void *recv, void *smr, void *rmr, const unsigned char *out,
                 unsigned char *in, size_t size, size_t capacity, int tag);
/* A connection to listen's handle and one verified message of bytes over it, then all closed; whether it all succeeded. */
int self_round_trip(ncclNet_v12_t *net, void *ctx, void *handle, void *listen, size_t bytes);
/* NCCL's proxy threads, one per communicator's life (driver_proxies.c). */
int run_proxies(int argc, char **argv);
/* A host that forks once the library runs (driver_fork.c). */
int run_fork(void);
/* A host that runs a JVM of its own, from a libjvm it loaded privately (driver_host.c). */
int run_host_jvm(void);

#define MiB (1024u * 1024u)
#define CANARY 64
#define CANARY_BYTE 0xC5
#define EMPTY_BYTE 0xEE
#define WAIT_SECONDS 60.0
#define BUFFER_BYTES (8 * MiB + 2 * CANARY)
#define FLIGHT 32
#define MAX_RECVS 8

struct side {
    ncclNet_v12_t *net;
    void *ctx;
    int sock; /* to the other process: the listen handle, and "ready" bytes */
    int sender;
    unsigned char *buf; /* CANARY | 8 MiB | CANARY */
    void *listen_comm;
    void *mr[4];
};


/* This process and a forked child (the sender), each running body on its side; 0 when both passed. */
int run_two(void *(*body)(void *), int on_thread);
unsigned char *data_of(struct side *s);
int canaries_intact(const unsigned char *region, size_t capacity);
void reset_buffer(struct side *s);
/* Exchanges one byte with the peer process: both reached the same point. */
void rendezvous(struct side *s, const char *what);
/* Loads the table and inits this side (checks included); 0 when the table loaded. */
int start_side(struct side *s);
/* The receiver listens and sends its handle to the sender, which receives it into handle. */
void exchange_handle(struct side *s, unsigned char *handle);
void *connect_comm(struct side *s, const unsigned char *handle);
/* Inits this side and checks its device and properties; -1, checked, when init or getProperties failed. */
int init_side(struct side *s);
void *reg(struct side *s, void *comm);
void *post_send(struct side *s, void *comm, size_t offset, size_t size, int tag, void *mr);
void *post_recv(struct side *s, void *comm, int n, size_t *offsets, size_t *sizes, int *tags, void *mr, void *preset);

#endif
