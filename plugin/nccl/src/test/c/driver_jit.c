/*
 * The embedded JVM's JIT compilers, watched from C: how long this process's compiler threads ran
 * or waited on a run queue, and whether one is runnable now, as /proc shows them (each thread's
 * comm names it; the first two fields of its schedstat count its ns on a CPU and its ns on a run
 * queue, the latter added when it gets a CPU; its stat's state is R while it runs or waits for a
 * CPU). On two cores a compiler thread at work takes a core from the data path in slices of
 * milliseconds, so the bench keeps compilations out of what it times, as ofinet-perf does. A
 * compiler with work it cannot run counts as at work, by its state R: after a warm-up ofinet puts
 * its compilers at SCHED_IDLE, where beside busy threads they can wait seconds for a core, their
 * CPU time unchanged and their methods still to compile. A compiler with nothing to compile sleeps.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Whether a thread's stat line ("tid (comm) state ...") says it runs or waits for a CPU. */
static int is_runnable(const char *stat) {
    const char *end = strrchr(stat, ')');
    return end != NULL && end[1] == ' ' && end[2] == 'R';
}

/*
 * The ns this process's compiler threads ran and waited on a run queue, summed, and how many are
 * runnable now; 0 when some were seen.
 */
static int compiler_times(long long *ran, long long *waited, int *runnable) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) {
        return -1;
    }
    *ran = *waited = 0;
    *runnable = 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(tasks)) != NULL) {
        char comm[64], schedstat[128], stat[512];
        if (e->d_name[0] == '.' || read_task_file(e->d_name, "comm", comm, sizeof comm) != 0 || !is_compiler(comm) ||
            read_task_file(e->d_name, "schedstat", schedstat, sizeof schedstat) != 0) {
            continue;
        }
        /* "ns-on-a-CPU ns-on-a-run-queue timeslices" */
        char *rest;
        *ran += strtoll(schedstat, &rest, 10);
        *waited += strtoll(rest, NULL, 10);
        *runnable += read_task_file(e->d_name, "stat", stat, sizeof stat) == 0 && is_runnable(stat);
        found = 1;
    }
    closedir(tasks);
    return found ? 0 : -1;
}

/* One reading: the ns the compilers ran or waited (-1 when there are none to see), and whether one is runnable. */
static long long reading(int *runnable) {
    long long ran, waited;
    return compiler_times(&ran, &waited, runnable) == 0 ? ran + waited : -1;
}

long long jit_compiler_ns(void) {
    int runnable;
    return reading(&runnable);
}

int jit_quiet(struct jit_watch *w, double now) {
    int runnable;
    long long work = reading(&runnable);
    if (work < 0) {
        return 1; /* nothing to watch: no JVM yet, or no schedstat */
    }
    if (w->seen < 0 || llabs(work - w->seen) > JIT_SLACK_NS || runnable > 0) {
        w->seen = work;
        w->quiet_since = now;
    }
    return now - w->quiet_since >= JIT_QUIET_SECONDS;
}

int jit_worked_since(long long before) {
    int runnable;
    long long work = reading(&runnable);
    return work >= 0 && before >= 0 && (llabs(work - before) > JIT_SLACK_NS || runnable > 0);
}

/*
 * The watch's own check, with no JVM. A thread named as HotSpot names C2's spins at SCHED_IDLE on
 * the one CPU this process is pinned to, beside a busy thread of normal priority, so it waits for
 * the CPU almost all the time and runs almost never, as a compiler does after ofinet's warm-up
 * beside busy ranks: the watch must not call it quiet, and must say it worked since a reading
 * taken before. Then it is renamed (the watch no longer sees it, however starved) and a second
 * stand-in of normal priority blocks at once, as a compiler with nothing to compile does: the
 * watch must call that quiet. The starved thread is left to end with the process.
 */
struct stand_in {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int started; /* 1 named and at the policy asked for, -1 refused */
    int idle;    /* SCHED_IDLE, and spin until told to stop; else block at once */
    atomic_int spin;
    int end;
};

static void *stand_in_compiler(void *arg) {
    struct stand_in *s = arg;
    struct sched_param param = {0};
    int ok = pthread_setname_np(pthread_self(), "C2 CompilerThre") == 0 &&
             (!s->idle || pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0);
    pthread_mutex_lock(&s->lock);
    s->started = ok ? 1 : -1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    while (s->idle && atomic_load(&s->spin)) {
    }
    pthread_mutex_lock(&s->lock);
    while (!s->end) {
        pthread_cond_wait(&s->cond, &s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Starts a stand-in and waits until it is named; 1 when it is, 0 when refused, -1 on failure. */
static int start_stand_in(struct stand_in *s, pthread_t *thread) {
    if (pthread_create(thread, NULL, stand_in_compiler, s) != 0) {
        fprintf(stderr, "jitwatch: no stand-in thread\n");
        return -1;
    }
    pthread_mutex_lock(&s->lock);
    while (s->started == 0) {
        pthread_cond_wait(&s->cond, &s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return s->started > 0;
}

static void end_stand_in(struct stand_in *s) {
    atomic_store(&s->spin, 0);
    pthread_mutex_lock(&s->lock);
    s->end = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static atomic_int busy_runs;

static void *busy(void *arg) {
    (void)arg;
    while (atomic_load(&busy_runs)) {
    }
    return NULL;
}

/* Pins this thread, and the threads it starts, to the first CPU it may run on; 0 on success. */
static int pin_to_one_cpu(void) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        return -1;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &allowed)) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            return sched_setaffinity(0, sizeof one, &one);
        }
    }
    return -1;
}

/* Polls jit_quiet every 50 ms for `seconds`; returns when it first said quiet, or -1. */
static double first_quiet(double seconds) {
    struct jit_watch w = {.seen = -1};
    double start = now_seconds();
    for (double now = start; now - start < seconds; now = now_seconds()) {
        if (jit_quiet(&w, now)) {
            return now - start;
        }
        usleep(50000);
    }
    return -1;
}

/* The starved phase, then the blocked one; 0 when the watch read both right, 1 when not. */
static int watch_both(pthread_t starved_thread) {
    long long ran0, waited0, ran, waited;
    int runnable;
    if (compiler_times(&ran0, &waited0, &runnable) != 0) {
        printf("jitwatch: skipped: no schedstat for the stand-in to read\n");
        return 0;
    }
    long long before = ran0 + waited0; /* what jit_compiler_ns would read again */
    double starved = first_quiet(2.0);
    int worked = jit_worked_since(before);
    if (compiler_times(&ran, &waited, &runnable) != 0) {
        fprintf(stderr, "jitwatch: the stand-in's schedstat could not be read again\n");
        return 1;
    }
    printf("jitwatch: starved for 2 s: ran %.1f ms, waited %.1f ms, runnable %d, worked: %s, quiet: %s\n",
           (ran - ran0) / 1e6, (waited - waited0) / 1e6, runnable, worked ? "yes" : "no",
           starved < 0 ? "never" : "yes");
    int failed = 0;
    if (starved >= 0 || !worked) {
        fprintf(stderr, "jitwatch: a compiler waiting for the CPU read as quiet (after %.2f s), or as idle since a"
                        " reading\n", starved);
        failed = 1;
    }
    /* Out of the watch's sight without its having to run; then a compiler with nothing to do. */
    if (pthread_setname_np(starved_thread, "stand-in done") != 0) {
        fprintf(stderr, "jitwatch: the starved stand-in could not be renamed\n");
        return 1;
    }
    static struct stand_in blocked = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    pthread_t blocked_thread;
    if (start_stand_in(&blocked, &blocked_thread) != 1) {
        fprintf(stderr, "jitwatch: no blocked stand-in\n");
        return 1;
    }
    double bound = 10.0 * time_factor();
    double quiet = first_quiet(bound);
    printf("jitwatch: blocked: quiet after %.2f s\n", quiet);
    if (quiet < 0) {
        fprintf(stderr, "jitwatch: a blocked compiler not read as quiet within %.0f s\n", bound);
        failed = 1;
    }
    end_stand_in(&blocked);
    pthread_join(blocked_thread, NULL);
    return failed;
}

int jit_watch_check(void) {
    if (jit_compiler_ns() >= 0) {
        fprintf(stderr, "jitwatch: a compiler thread before the stand-in: this mode runs without a JVM\n");
        return 1;
    }
    if (pin_to_one_cpu() != 0) {
        printf("jitwatch: skipped: this process could not be pinned to one CPU\n");
        return 0;
    }
    /* Static: the starved stand-in may outlive this function, ended only with the process. */
    static struct stand_in starved = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .idle = 1,
                                      .spin = 1};
    pthread_t other, starved_thread;
    atomic_store(&busy_runs, 1);
    if (pthread_create(&other, NULL, busy, NULL) != 0) {
        fprintf(stderr, "jitwatch: no busy thread\n");
        return 1;
    }
    int started = start_stand_in(&starved, &starved_thread);
    int failed = started < 0;
    if (started == 0) {
        printf("jitwatch: skipped: SCHED_IDLE or the thread's name refused here\n");
    } else if (started > 0) {
        failed = watch_both(starved_thread);
    }
    atomic_store(&busy_runs, 0);
    pthread_join(other, NULL);
    if (started >= 0) {
        end_stand_in(&starved);
        pthread_detach(starved_thread);
    }
    return failed;
}
