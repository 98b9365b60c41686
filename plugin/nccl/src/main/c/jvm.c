/*
 * The JVM inside a host process: found when the host already runs one, created otherwise, once per
 * process and never destroyed; then bridge.c loads ofinet into it.
 *
 * The JVM is created on a thread of its own: hosts such as Python call NCCL's init on the
 * process's primordial thread, where HotSpot should not be created (its stack guard pages assume
 * a thread it can size). That thread detaches when the bootstrap is done; the threads that later
 * call the table are attached by the upcall stubs themselves.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "boot.h"
#include "ofinet_java.h"

#ifndef OFINET_BUILD_JAVA_HOME
#define OFINET_BUILD_JAVA_HOME ""
#endif

/* FFM (java.lang.foreign) is final in Java 22. */
#define OFINET_MIN_JAVA_FEATURE 22
#define OFINET_MAX_JVM_OPTIONS 64
#define OFINET_BOOT_STACK_BYTES (8u << 20)

struct ofinet_java ofinet_java;
struct ofinet_start_times ofinet_start_times;


typedef jint(JNICALL *create_vm_fn)(JavaVM **, void **, void *);
typedef jint(JNICALL *created_vms_fn)(JavaVM **, jsize, jsize *);

static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static int boot_done;
static ncclResult_t boot_result = ncclSystemError;
static char boot_error[1024];


/* The runtime bundled with the library, in the directory of the library's real path, beside its jars. */
#define OFINET_BUNDLED_RUNTIME "ofinet/runtime"

/*
 * The Java runtime to load: OFINET_JAVA_HOME; else the runtime bundled with the library in dir
 * (the library's directory, NULL when unknown), written into bundled, when anything is there: a
 * broken one is taken all the same, and refused by name; else JAVA_HOME; else the JDK this library
 * was built with. *source says which.
 */
static const char *java_home(const char *dir, char *bundled, size_t len, const char **source) {
    struct stat st;
    const char *home = getenv("OFINET_JAVA_HOME");
    if (home != NULL && *home != '\0') {
        *source = "OFINET_JAVA_HOME";
        return home;
    }
    if (dir != NULL && join_path(bundled, len, dir, OFINET_BUNDLED_RUNTIME) == 0 && lstat(bundled, &st) == 0) {
        *source = "the runtime bundled with ofinet";
        return bundled;
    }
    home = getenv("JAVA_HOME");
    if (home != NULL && *home != '\0') {
        *source = "JAVA_HOME";
        return home;
    }
    *source = "the JDK ofinet was built with";
    return OFINET_BUILD_JAVA_HOME;
}

/* The feature release named by JAVA_VERSION in the JDK's release file, or -1; version gets the text. */
static int java_feature(const char *home, char *version, size_t len) {
    char path[PATH_MAX];
    char line[512];
    int feature = -1;
    snprintf(version, len, "unknown");
    if (join_path(path, sizeof path, home, "release") != 0) {
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "JAVA_VERSION=\"", 14) == 0) {
            char *end = strchr(line + 14, '"');
            if (end != NULL) {
                *end = '\0';
            }
            if (strlen(line + 14) >= len) {
                break; /* no version is that long */
            }
            memcpy(version, line + 14, strlen(line + 14) + 1);
            /* "1.8.0_402" is Java 8; "25.0.1" is Java 25. */
            feature = strncmp(version, "1.", 2) == 0 ? atoi(version + 2) : atoi(version);
            break;
        }
    }
    fclose(f);
    return feature;
}

/*
 * Some failures while HotSpot starts (a heap it cannot reserve, collectors that conflict) end the
 * process instead of returning from JNI_CreateJavaVM: HotSpot prints them and calls its abort or exit
 * hook, then exits. During the create, on the thread that creates, the hooks jump back to it
 * instead, and init fails with the reason HotSpot printed. Anywhere else they return at once and
 * HotSpot goes on as it would.
 */
static sigjmp_buf create_failed;
static pthread_t creating_thread;
static volatile sig_atomic_t creating;

static void create_ended_the_process(void) {
    if (creating && pthread_equal(pthread_self(), creating_thread)) {
        creating = 0;
        siglongjmp(create_failed, 1);
    }
}

static void create_exited(jint code) {
    (void)code;
    create_ended_the_process();
}

/* JNI_CreateJavaVM, with HotSpot's exits during it turned into a failure (JNI_ERR). */
static jint create_guarded(create_vm_fn create, JavaVM **vm, JNIEnv **env, JavaVMInitArgs *args) {
    creating_thread = pthread_self();
    if (sigsetjmp(create_failed, 1) != 0) {
        return JNI_ERR;
    }
    creating = 1;
    jint rc = create(vm, (void **)env, args);
    creating = 0;
    return rc;
}

/* Splits OFINET_JVM_OPTIONS at white space into options[*count..]; returns the copy to free. */
static char *user_options(JavaVMOption *options, int *count, int max) {
    const char *text = getenv("OFINET_JVM_OPTIONS");
    if (text == NULL) {
        return NULL;
    }
    char *copy = strdup(text);
    if (copy == NULL) {
        return NULL;
    }
    char *save = NULL;
    for (char *word = strtok_r(copy, " \t\n", &save); word != NULL && *count < max;
         word = strtok_r(NULL, " \t\n", &save)) {
        options[(*count)++].optionString = word;
    }
    return copy;
}

/* Creates the JVM; *on_class_path tells whether ofinet's jars are its class path. */
static ncclResult_t create_jvm(struct boot *b, JavaVM **vm, JNIEnv **env, int *on_class_path) {
    char dir[PATH_MAX];
    int found = library_dir(dir, sizeof dir) == 0;
    const char *source;
    char bundled[PATH_MAX];
    const char *home = java_home(found ? dir : NULL, bundled, sizeof bundled, &source);
    char version[128];
    char libjvm[PATH_MAX];
    if (*home == '\0') {
        return boot_fail(b, ncclInvalidUsage, "no JDK: none is bundled beside the library (%s/" OFINET_BUNDLED_RUNTIME
                    "): set OFINET_JAVA_HOME or JAVA_HOME to a JDK %d or newer", found ? dir : "its directory unknown",
                    OFINET_MIN_JAVA_FEATURE);
    }
    int feature = java_feature(home, version, sizeof version);
    if (feature < 0) {
        return boot_fail(b, ncclInvalidUsage, "%s (%s) is not a JDK: it has no release file naming JAVA_VERSION; a JDK %d or"
                    " newer is needed", home, source, OFINET_MIN_JAVA_FEATURE);
    }
    if (feature < OFINET_MIN_JAVA_FEATURE) {
        return boot_fail(b, ncclInvalidUsage, "%s (%s) is Java %s; ofinet's C door needs Java %d or newer (FFM upcalls):"
                    " set OFINET_JAVA_HOME to one", home, source, version, OFINET_MIN_JAVA_FEATURE);
    }
    if (join_path(libjvm, sizeof libjvm, home, "lib/server/libjvm.so") != 0) {
        return boot_fail(b, ncclInvalidUsage, "the JDK's path is too long: %s", home);
    }
    /* Debian's libfabric pulls in psm's libinfinipath, which takes SIGSEGV from the JVM unless told not to. */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);
    void *lib = dlopen(libjvm, RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) {
        return boot_fail(b, ncclSystemError, "cannot load %s (Java %s, %s): %s", libjvm, version, source, dlerror());
    }
    ofinet_start_times.libjvm = ofinet_now_ns();
    create_vm_fn create = (create_vm_fn)dlsym(lib, "JNI_CreateJavaVM");
    if (create == NULL) {
        return boot_fail(b, ncclSystemError, "%s has no JNI_CreateJavaVM", libjvm);
    }
    JavaVMOption options[OFINET_MAX_JVM_OPTIONS];
    int count = 0;
    /* -Xrs: the host keeps SIGINT, SIGTERM, SIGHUP and SIGQUIT. */
    options[count++].optionString = "-Xrs";
    options[count++].optionString = "--enable-native-access=ALL-UNNAMED";
    /* The guest's sizes, before the user's options, which may choose otherwise. */
    const char *guest[OFINET_GUEST_OPTIONS];
    int n_guest = guest_options(guest);
    for (int i = 0; i < n_guest; i++) {
        options[count++].optionString = (char *)guest[i];
    }
    /* The AOT cache, before the user's options: they may choose otherwise, or log what HotSpot does with it. */
    char aot[PATH_MAX + 32];
    const char *aot_options[2];
    int n_aot = found ? aot_cache_options(home, feature, dir, aot_options, aot, sizeof aot) : 0;
    for (int i = 0; i < n_aot; i++) {
        options[count++].optionString = (char *)aot_options[i];
    }
    char *copy = user_options(options, &count, OFINET_MAX_JVM_OPTIONS - 3);
    /* ofinet's jars as the class path, after the user's options, which do not replace it. */
    char *class_path = found ? class_path_option(dir) : NULL;
    if (class_path != NULL) {
        options[count++].optionString = class_path;
    }
    for (int i = 0; i < count; i++) {
        options[i].extraInfo = NULL;
    }
    options[count++] = (JavaVMOption){.optionString = "abort", .extraInfo = (void *)create_ended_the_process};
    options[count++] = (JavaVMOption){.optionString = "exit", .extraInfo = (void *)create_exited};
    JavaVMInitArgs args = {.version = JNI_VERSION_10, .nOptions = count, .options = options,
                           .ignoreUnrecognized = JNI_FALSE};
    jint rc = create_guarded(create, vm, env, &args);
    free(copy);
    free(class_path);
    *on_class_path = class_path != NULL;
    ofinet_start_times.created = ofinet_now_ns();
    if (rc != JNI_OK) {
        return boot_fail(b, ncclSystemError, "JNI_CreateJavaVM (%s, Java %s) failed with %d; check OFINET_JVM_OPTIONS"
                    " (HotSpot printed why on stderr)", libjvm, version, (int)rc);
    }
    OFINET_INFO("created a Java %s VM from %s (%s)", version, home, source);
    return ncclSuccess;
}

/* Called for each object loaded in the process: copies the path of the first libjvm.so into data (PATH_MAX bytes). */
static int libjvm_path(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    static const char suffix[] = "/libjvm.so";
    const char *name = info->dlpi_name;
    size_t len = name == NULL ? 0 : strlen(name);
    if (len < sizeof suffix - 1 || len >= PATH_MAX || strcmp(name + len - (sizeof suffix - 1), suffix) != 0) {
        return 0;
    }
    memcpy(data, name, len + 1);
    return 1;
}

/*
 * The JVMs of the process's libjvm: the one whose symbols are global, else one a host loaded
 * privately (RTLD_LOCAL, as Python's ctypes does), found among the loaded objects and looked up in
 * itself. Its count goes to *n (0 when there is no libjvm).
 */
static void created_jvms(JavaVM **vm, jsize *n) {
    *n = 0;
    created_vms_fn created = (created_vms_fn)dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
    if (created != NULL) {
        if (created(vm, 1, n) != JNI_OK) {
            *n = 0;
        }
        return;
    }
    char path[PATH_MAX];
    /* Opened after the walk, which holds the loader's lock: RTLD_NOLOAD finds it loaded, or nothing. */
    if (dl_iterate_phdr(libjvm_path, path) == 0) {
        return;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL) {
        return;
    }
    created = (created_vms_fn)dlsym(lib, "JNI_GetCreatedJavaVMs");
    if (created == NULL || created(vm, 1, n) != JNI_OK) {
        *n = 0;
    }
    dlclose(lib); /* RTLD_NOLOAD took a reference of its own; the host's keeps it loaded */
}

/* The JVM already in the process, attached to; or NULL in *vm when there is none. */
static ncclResult_t existing_jvm(struct boot *b, JavaVM **vm, JNIEnv **env) {
    *vm = NULL;
    jsize n = 0;
    created_jvms(vm, &n);
    if (n < 1) {
        *vm = NULL;
        return ncclSuccess;
    }
    JavaVMAttachArgs attach = {.version = JNI_VERSION_10, .name = "ofinet bootstrap", .group = NULL};
    if ((**vm)->AttachCurrentThreadAsDaemon(*vm, (void **)env, &attach) != JNI_OK) {
        return boot_fail(b, ncclSystemError, "cannot attach to the JVM already running in this process");
    }
    OFINET_INFO("attached to the JVM already running in this process");
    return ncclSuccess;
}

static void *boot_thread(void *arg) {
    struct boot *b = arg;
    JavaVM *vm = NULL;
    JNIEnv *env = NULL;
    int on_class_path = 0;
    b->result = existing_jvm(b, &vm, &env);
    if (b->result == ncclSuccess && vm == NULL) {
        b->result = create_jvm(b, &vm, &env, &on_class_path);
    }
    if (b->result == ncclSuccess) {
        b->result = load_bridge(b, env, on_class_path);
        ofinet_start_times.bridge = ofinet_now_ns();
    }
    if (vm != NULL && (*vm)->DetachCurrentThread(vm) != JNI_OK) {
        OFINET_INFO("the bootstrap thread could not detach from the JVM; it ends attached");
    }
    return NULL;
}

ncclResult_t ofinet_boot(char *err, size_t errlen) {
    pthread_mutex_lock(&boot_lock);
    if (!boot_done) {
        ofinet_start_times.begun = ofinet_now_ns();
        struct boot b = {.result = ncclSystemError, .err = ""};
        pthread_attr_t attr;
        pthread_t thread;
        int rc = pthread_attr_init(&attr);
        if (rc == 0) {
            pthread_attr_setstacksize(&attr, OFINET_BOOT_STACK_BYTES);
            rc = pthread_create(&thread, &attr, boot_thread, &b);
            pthread_attr_destroy(&attr);
        }
        if (rc != 0) {
            boot_fail(&b, ncclSystemError, "cannot start the thread that starts the JVM: %s", strerror(rc));
        } else {
            pthread_join(thread, NULL);
        }
        boot_result = b.result;
        snprintf(boot_error, sizeof boot_error, "%s", b.err);
        boot_done = 1;
    }
    ncclResult_t result = boot_result;
    snprintf(err, errlen, "%s", boot_error);
    pthread_mutex_unlock(&boot_lock);
    return result;
}

ncclResult_t boot_fail(struct boot *b, ncclResult_t result, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, args);
    va_end(args);
    b->result = result;
    return result;
}

int64_t ofinet_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* out = a/b; -1 when it does not fit. */
int join_path(char *out, size_t len, const char *a, const char *b) {
    int n = snprintf(out, len, "%s/%s", a, b);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}
