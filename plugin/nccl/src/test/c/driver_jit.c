/*
 * The embedded JVM's JIT compilers, watched from C: the CPU time of this process's compiler
 * threads, as /proc shows them (each thread's comm names it, the first field of its schedstat counts
 * its ns on a CPU). On two cores a compiler thread at work takes a core from the data path in slices
 * of milliseconds, so the bench keeps compilations out of what it times, as ofinet-perf does.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* How HotSpot names its compiler threads (a thread's comm is cut to 15 characters). */
static const char *const compiler_threads[] = {"C1 CompilerThre", "C2 CompilerThre", "JVMCI CompilerT"};

/* Reads the first line of /proc/self/task/<tid>/<file> into buf; 0 on success. */
static int read_task_file(const char *tid, const char *file, char *buf, size_t len) {
    char path[128];
    if (snprintf(path, sizeof path, "/proc/self/task/%s/%s", tid, file) >= (int)sizeof path) {
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1; /* a thread that ended between the listing and the read */
    }
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

static int is_compiler(const char *comm) {
    for (size_t i = 0; i < sizeof compiler_threads / sizeof compiler_threads[0]; i++) {
        if (strncmp(comm, compiler_threads[i], strlen(compiler_threads[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

long long jit_compiler_ns(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) {
        return -1;
    }
    long long sum = 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(tasks)) != NULL) {
        char comm[64], schedstat[128];
        if (e->d_name[0] == '.' || read_task_file(e->d_name, "comm", comm, sizeof comm) != 0 || !is_compiler(comm) ||
            read_task_file(e->d_name, "schedstat", schedstat, sizeof schedstat) != 0) {
            continue;
        }
        sum += strtoll(schedstat, NULL, 10);
        found = 1;
    }
    closedir(tasks);
    return found ? sum : -1;
}

int jit_quiet(struct jit_watch *w, double now) {
    long long work = jit_compiler_ns();
    if (work < 0) {
        return 1; /* nothing to watch: no JVM yet, or no schedstat */
    }
    if (w->seen < 0 || llabs(work - w->seen) > JIT_SLACK_NS) {
        w->seen = work;
        w->quiet_since = now;
    }
    return now - w->quiet_since >= JIT_QUIET_SECONDS;
}

int jit_worked_since(long long before) {
    long long work = jit_compiler_ns();
    return work >= 0 && before >= 0 && llabs(work - before) > JIT_SLACK_NS;
}
