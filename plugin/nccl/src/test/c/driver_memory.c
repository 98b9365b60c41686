/*
 * What this process holds, as /proc shows it: a field of /proc/self/status (VmRSS, Threads) or of
 * /proc/self/smaps_rollup (Pss: one pass the kernel sums), and its resident memory by kind of
 * mapping from /proc/self/smaps, as pmap -x would sum it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* A field "name: value" of the /proc file path, or -1. */
static long proc_field(const char *path, const char *name) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    char line[256];
    size_t len = strlen(name);
    long value = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, name, len) == 0 && line[len] == ':') {
            value = strtol(line + len + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return value;
}

long status_field(const char *name) {
    return proc_field("/proc/self/status", name);
}

long rollup_field(const char *name) {
    return proc_field("/proc/self/smaps_rollup", name);
}

/* The kind of a mapping, by its path (empty, or a name in brackets, for anonymous memory). */
static enum mapping_kind kind_of(const char *path) {
    size_t len = strlen(path);
    if (len >= 10 && strcmp(path + len - 10, "/libjvm.so") == 0) {
        return MAP_LIBJVM;
    }
    if (len >= 4 && (strcmp(path + len - 4, ".aot") == 0 || strcmp(path + len - 4, ".jsa") == 0)) {
        return MAP_AOT;
    }
    if (len >= 12 && strcmp(path + len - 12, "/lib/modules") == 0) {
        return MAP_MODULES;
    }
    if (strstr(path, "libfabric") != NULL) {
        return MAP_LIBFABRIC;
    }
    return path[0] == '/' ? MAP_FILES : MAP_ANONYMOUS;
}

int resident_by_kind(struct resident *out) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    char line[4096];
    enum mapping_kind kind = MAP_ANONYMOUS;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long from, to;
        int end = -1;
        long kb;
        /* A mapping's first line: from-to perms offset dev inode [path]; its fields follow, one a line. */
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s%n", &from, &to, &end) == 2 && end > 0) {
            line[strcspn(line, "\n")] = '\0';
            kind = kind_of(line + end + strspn(line + end, " \t"));
        } else if (sscanf(line, "Rss: %ld kB", &kb) == 1) {
            out->kb[kind] += kb;
        } else if (sscanf(line, "Pss: %ld kB", &kb) == 1) {
            out->pss_kb += kb;
        } else if (sscanf(line, "Private_Clean: %ld kB", &kb) == 1 || sscanf(line, "Private_Dirty: %ld kB", &kb) == 1) {
            out->private_kb += kb;
        }
    }
    fclose(f);
    return 0;
}
