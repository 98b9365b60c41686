/*
 * The options the library adds to a JVM it creates: its sizes as a guest in the host's process,
 * ofinet's jars as its class path, so that the application class loader loads ofinet (bridge.c),
 * and the AOT cache made with them when the build made one with the same JDK.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "ofinet_java.h"

#define CLASS_PATH_PREFIX "-Djava.class.path="

char *class_path_option(const char *dir) {
    char *jars[OFINET_MAX_JARS];
    int n = list_jars(dir, jars, OFINET_MAX_JARS);
    if (n <= 0) {
        return NULL;
    }
    size_t len = strlen(CLASS_PATH_PREFIX) + 1;
    for (int i = 0; i < n; i++) {
        len += strlen(jars[i]) + 1;
    }
    char *option = malloc(len);
    if (option != NULL) {
        strcpy(option, CLASS_PATH_PREFIX);
        for (int i = 0; i < n && option != NULL; i++) {
            if (strchr(jars[i], ':') != NULL) {
                free(option); /* ':' separates a class path's entries: these jars cannot be one */
                option = NULL;
            } else {
                strcat(option, i > 0 ? ":" : "");
                strcat(option, jars[i]);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        free(jars[i]);
    }
    return option;
}

/* Whether word (len characters) begins with one of the n prefixes. */
static int begins_with_any(const char *word, size_t len, const char *const *prefixes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (len >= strlen(prefixes[i]) && strncmp(word, prefixes[i], strlen(prefixes[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Whether word (len characters) sizes the heap: HotSpot refuses an initial heap over the maximum. */
static int sizes_heap(const char *word, size_t len) {
    static const char *const prefixes[] = {"-Xms", "-Xmx", "-XX:InitialHeapSize=", "-XX:MaxHeapSize=",
                                           "-XX:MinHeapSize=", "-XX:MaxRAM", "-XX:InitialRAMPercentage=",
                                           "-XX:MinRAMPercentage="};
    return begins_with_any(word, len, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

/* Whether word (len characters) sizes the young generation, which the library sizes for its serial collector. */
static int sizes_young(const char *word, size_t len) {
    static const char *const prefixes[] = {"-Xmn", "-XX:NewSize=", "-XX:MaxNewSize=", "-XX:NewRatio="};
    return begins_with_any(word, len, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

/* Whether word (len characters) chooses a collector (-XX:+Use...GC, -XX:-Use...GC): HotSpot refuses two. */
static int chooses_collector(const char *word, size_t len) {
    return len > 10 && (strncmp(word, "-XX:+Use", 8) == 0 || strncmp(word, "-XX:-Use", 8) == 0) &&
           strncmp(word + len - 2, "GC", 2) == 0;
}

/* Whether a word of OFINET_JVM_OPTIONS matches. */
static int user_option(int (*matches)(const char *word, size_t len)) {
    const char *text = getenv("OFINET_JVM_OPTIONS");
    for (const char *at = text; at != NULL && *at != '\0';) {
        at += strspn(at, " \t\n");
        size_t len = strcspn(at, " \t\n");
        if (len > 0 && matches(at, len)) {
            return 1;
        }
        at += len;
    }
    return 0;
}

/*
 * Each measured through the table (docs/NCCL.md, "The JVM's options"): the serial collector starts
 * no collector threads, where G1 starts five and more with the node's cores; a heap that starts at
 * 8 MiB is touched that far only (ofinet's calls allocate nothing once warm), its young generation
 * starting at 1 MiB under the serial collector, where init's short-lived garbage is made (it grows
 * with the heap); a fixed maximum keeps
 * compressed oops, which the AOT cache was made with, on a node of 128 GiB or more; two compiler
 * threads whatever the node's cores; no hsperfdata file in /tmp; the monitor deflation thread
 * awake once a second instead of four times, as each wake-up takes a core from a rank; the
 * class-file API left to the interpreter: the JVM runs it to generate the FFM stubs' classes at
 * init, and nowhere after, so compiling it only took cores and memory from init.
 */
int guest_options(const char **options) {
    static const char *const always[] = {
        "-XX:CICompilerCount=2", "-XX:-UsePerfData", "-XX:+UnlockDiagnosticVMOptions",
        "-XX:AsyncDeflationInterval=1000", "-XX:CompileCommand=quiet",
        "-XX:CompileCommand=exclude,jdk.internal.classfile.*::*", "-XX:CompileCommand=exclude,java.lang.classfile.*::*"};
    /* The collector, the two heap sizes and the young generation's, each at most once. */
    _Static_assert(4 + sizeof always / sizeof always[0] <= OFINET_GUEST_OPTIONS,
                   "OFINET_GUEST_OPTIONS holds every guest option");
    int n = 0;
    int serial = !user_option(chooses_collector);
    int ours_heap = !user_option(sizes_heap);
    if (serial) {
        options[n++] = "-XX:+UseSerialGC";
    }
    /*
     * The small heap only with the serial collector: HotSpot 25's parallel collector crashes the
     * process when it collects before its own start is done, which a young generation too small
     * for the AOT cache's objects makes it do (docs/NCCL.md, "The JVM's options").
     */
    if (serial && ours_heap) {
        options[n++] = "-Xms8m";
    }
    if (ours_heap) {
        options[n++] = "-Xmx1g";
    }
    if (serial && ours_heap && !user_option(sizes_young)) {
        options[n++] = "-XX:NewSize=1m";
    }
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++) {
        options[n++] = always[i];
    }
    return n;
}

/*
 * The AOT cache beside the library (docs/NCCL.md, "The AOT cache"), with what it was made from in
 * <cache>.id: lines KEY="VALUE" from the release file of the JDK that made it, then one line
 * "NAME SIZE" per jar of the class path, in its order.
 */
#define AOT_CACHE_NAME "libnccl-net-ofinet.aot"
/* JDK 24 reads AOT caches (JEP 483); an older JDK does not know the option and would not start. */
#define AOT_MIN_JAVA_FEATURE 24
#define AOT_ID_MAX (64 * 1024)

/* The text of the file at path, NUL-terminated (malloc'd: free it); NULL when it cannot be read or exceeds max bytes. */
static char *read_text(const char *path, size_t max) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return NULL;
    }
    char *text = malloc(max + 1);
    size_t n = text == NULL ? 0 : fread(text, 1, max + 1, f);
    int failed = text == NULL || ferror(f) || n > max;
    fclose(f);
    if (failed) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* Whether release (a JDK's release file) holds line as one of its lines. */
static int has_line(const char *release, const char *line) {
    size_t len = strlen(line);
    for (const char *at = strstr(release, line); at != NULL; at = strstr(at + 1, line)) {
        if ((at == release || at[-1] == '\n') && (at[len] == '\n' || at[len] == '\0')) {
            return 1;
        }
    }
    return 0;
}

/* Whether the jar at path is name with size bytes. */
static int same_jar(const char *path, const char *name, long long size) {
    const char *slash = strrchr(path, '/');
    struct stat st;
    return slash != NULL && strcmp(slash + 1, name) == 0 && stat(path, &st) == 0 && (long long)st.st_size == size;
}

/* NULL when id (the text of <cache>.id) names this runtime (JDK or jlink image) and the jars in <dir>/ofinet; else what differs. */
static const char *id_differs(char *id, const char *home, const char *dir) {
    char path[PATH_MAX];
    char *jars[OFINET_MAX_JARS];
    const char *differs = NULL;
    char *release = join_path(path, sizeof path, home, "release") == 0 ? read_text(path, AOT_ID_MAX) : NULL;
    int n = list_jars(dir, jars, OFINET_MAX_JARS);
    int jar = 0;
    int jdk = 0;
    char *save = NULL;
    if (release == NULL || n <= 0) {
        differs = release == NULL ? "the JDK's release file cannot be read" : "the jars cannot be listed";
    }
    for (char *line = strtok_r(id, "\n", &save); line != NULL && differs == NULL; line = strtok_r(NULL, "\n", &save)) {
        char name[256];
        long long size;
        if (strchr(line, '=') != NULL) {
            differs = has_line(release, line) ? NULL : "it was made by another Java runtime";
            jdk++;
        } else if (sscanf(line, "%255s %lld", name, &size) == 2) {
            differs = jar < n && same_jar(jars[jar], name, size) ? NULL : "it was made with other jars";
            jar++;
        } else {
            differs = "its .id file has a line that is neither a JDK's nor a jar's";
        }
    }
    if (differs == NULL && (jdk == 0 || jar != n)) {
        differs = jdk == 0 ? "its .id file names no JDK" : "it was made with other jars";
    }
    for (int i = 0; i < n; i++) {
        free(jars[i]);
    }
    free(release);
    return differs;
}

/* Whether the user's JVM options already say how to use CDS or an AOT cache. */
static int user_chose_archive(void) {
    const char *text = getenv("OFINET_JVM_OPTIONS");
    return text != NULL && (strstr(text, "-XX:AOT") != NULL || strstr(text, "-XX:SharedArchiveFile") != NULL ||
                            strstr(text, "-XX:ArchiveClassesAtExit") != NULL || strstr(text, "-Xshare") != NULL);
}

int aot_cache_options(const char *home, int feature, const char *dir, const char **options, char *buf, size_t len) {
    const char *chosen = getenv("OFINET_AOT_CACHE");
    char cache[PATH_MAX];
    const char *skip = NULL;
    if (chosen != NULL && strcmp(chosen, "off") == 0) {
        return 0;
    }
    if (user_chose_archive()) {
        OFINET_INFO("AOT cache: not used: OFINET_JVM_OPTIONS chooses the archive");
        return 0;
    }
    int given = chosen != NULL && *chosen != '\0';
    if ((given ? snprintf(cache, sizeof cache, "%s", chosen) >= (int)sizeof cache
               : join_path(cache, sizeof cache, dir, AOT_CACHE_NAME) != 0) || access(cache, R_OK) != 0) {
        if (given) {
            OFINET_INFO("AOT cache %s (OFINET_AOT_CACHE): not used: it cannot be read", chosen);
        }
        return 0;
    }
    if (feature < AOT_MIN_JAVA_FEATURE) {
        skip = "this JDK is older than 24 and reads no AOT cache";
    } else if (!given) {
        char id_path[PATH_MAX + 8];
        snprintf(id_path, sizeof id_path, "%s.id", cache);
        char *id = read_text(id_path, AOT_ID_MAX);
        skip = id == NULL ? "its .id file cannot be read" : id_differs(id, home, dir);
        free(id);
    }
    if (skip != NULL || snprintf(buf, len, "-XX:AOTCache=%s", cache) >= (int)len) {
        OFINET_INFO("AOT cache %s: not used: %s", cache, skip != NULL ? skip : "its path is too long");
        return 0;
    }
    OFINET_INFO("AOT cache %s: handed to the JVM", cache);
    /* A cache HotSpot refuses after all (it checks the JDK's build and the class path) is skipped quietly. */
    options[0] = "-Xlog:aot*=off,cds*=off";
    options[1] = buf;
    return 2;
}
