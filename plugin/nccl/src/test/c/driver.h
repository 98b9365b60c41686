/*
 * The test driver of libnccl-net-ofinet.so: it loads the library the way NCCL does (dlopen by name
 * through the library search path, dlsym of ncclNetPlugin_v12) and drives the table. Each check
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
void driver_logger(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);

/* Loads the library as NCCL does; NULL (and a FAILED line) when it cannot. */
ncclNet_v12_t *load_table(void);

/* Seconds since an arbitrary start. */
double now_seconds(void);

/* Calls test until done or an error; returns the result (ncclSystemError on the deadline). */
ncclResult_t await_request(ncclNet_v12_t *net, void *request, int *sizes, double seconds);

/* Bytes of a message: a pattern of its seed, and whether a buffer holds it. */
void fill_pattern(unsigned char *p, size_t n, unsigned seed);
int has_pattern(const unsigned char *p, size_t n, unsigned seed);

/* The struct layout checks; the pair run (argv: [--thread]). */
int run_layout(void);
int run_pair(int on_thread);

#endif
