/*
 * The JVM inside a host process: found when the host already runs one, created otherwise, once per
 * process and never destroyed. ofinet's classes are loaded through a class loader of their own from
 * the jars in the "ofinet" directory beside this library, whatever the host's class path; the
 * bridge class then hands back its entry points (FFM upcall stubs) into ofinet_java.
 *
 * The JVM is created on a thread of its own: hosts such as Python call NCCL's init on the
 * process's primordial thread, where HotSpot should not be created (its stack guard pages assume
 * a thread it can size). That thread detaches when the bootstrap is done; the threads that later
 * call the table are attached by the upcall stubs themselves.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <jni.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofinet_java.h"

#ifndef OFINET_BUILD_JAVA_HOME
#define OFINET_BUILD_JAVA_HOME ""
#endif

/* FFM (java.lang.foreign) is final in Java 22. */
#define OFINET_MIN_JAVA_FEATURE 22
#define OFINET_MAX_JARS 64
#define OFINET_MAX_JVM_OPTIONS 64
#define OFINET_BRIDGE_CLASS "io.ofinet.nccl.NcclBridge"
#define OFINET_BOOT_STACK_BYTES (8u << 20)

struct ofinet_java ofinet_java;

static const char *const entry_names[] = {
#define OFINET_JAVA_NAME(name, params) #name,
    OFINET_JAVA_ENTRIES(OFINET_JAVA_NAME)
#undef OFINET_JAVA_NAME
};

typedef jint(JNICALL *create_vm_fn)(JavaVM **, void **, void *);
typedef jint(JNICALL *created_vms_fn)(JavaVM **, jsize, jsize *);

static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static int boot_done;
static ncclResult_t boot_result = ncclSystemError;
static char boot_error[1024];

struct boot {
    ncclResult_t result;
    char err[1024];
};

static ncclResult_t fail(struct boot *b, ncclResult_t result, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static ncclResult_t fail(struct boot *b, ncclResult_t result, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, args);
    va_end(args);
    b->result = result;
    return result;
}

/* out = a/b; -1 when it does not fit. */
static int join_path(char *out, size_t len, const char *a, const char *b) {
    int n = snprintf(out, len, "%s/%s", a, b);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The directory this library was loaded from. */
static int library_dir(char *out, size_t len) {
    Dl_info info;
    char resolved[PATH_MAX];
    if (!dladdr((void *)&library_dir, &info) || info.dli_fname == NULL || realpath(info.dli_fname, resolved) == NULL) {
        return -1;
    }
    char *slash = strrchr(resolved, '/');
    if (slash == NULL) {
        return -1;
    }
    *slash = '\0';
    return snprintf(out, len, "%s", resolved) < (int)len ? 0 : -1;
}

/* The JDK to load: OFINET_JAVA_HOME, else JAVA_HOME, else the JDK this library was built with. */
static const char *java_home(const char **source) {
    const char *home = getenv("OFINET_JAVA_HOME");
    if (home != NULL && *home != '\0') {
        *source = "OFINET_JAVA_HOME";
        return home;
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

static ncclResult_t create_jvm(struct boot *b, JavaVM **vm, JNIEnv **env) {
    const char *source;
    const char *home = java_home(&source);
    char version[128];
    char libjvm[PATH_MAX];
    if (*home == '\0') {
        return fail(b, ncclInvalidUsage, "no JDK: set OFINET_JAVA_HOME or JAVA_HOME to a JDK %d or newer",
                    OFINET_MIN_JAVA_FEATURE);
    }
    int feature = java_feature(home, version, sizeof version);
    if (feature < 0) {
        return fail(b, ncclInvalidUsage, "%s (%s) is not a JDK: it has no release file naming JAVA_VERSION; a JDK %d or"
                    " newer is needed", home, source, OFINET_MIN_JAVA_FEATURE);
    }
    if (feature < OFINET_MIN_JAVA_FEATURE) {
        return fail(b, ncclInvalidUsage, "%s (%s) is Java %s; ofinet's C door needs Java %d or newer (FFM upcalls):"
                    " set OFINET_JAVA_HOME to one", home, source, version, OFINET_MIN_JAVA_FEATURE);
    }
    if (join_path(libjvm, sizeof libjvm, home, "lib/server/libjvm.so") != 0) {
        return fail(b, ncclInvalidUsage, "the JDK's path is too long: %s", home);
    }
    /* Debian's libfabric pulls in psm's libinfinipath, which takes SIGSEGV from the JVM unless told not to. */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);
    void *lib = dlopen(libjvm, RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) {
        return fail(b, ncclSystemError, "cannot load %s (Java %s, %s): %s", libjvm, version, source, dlerror());
    }
    create_vm_fn create = (create_vm_fn)dlsym(lib, "JNI_CreateJavaVM");
    if (create == NULL) {
        return fail(b, ncclSystemError, "%s has no JNI_CreateJavaVM", libjvm);
    }
    JavaVMOption options[OFINET_MAX_JVM_OPTIONS];
    int count = 0;
    /* -Xrs: the host keeps SIGINT, SIGTERM, SIGHUP and SIGQUIT. */
    options[count++].optionString = "-Xrs";
    options[count++].optionString = "--enable-native-access=ALL-UNNAMED";
    char *copy = user_options(options, &count, OFINET_MAX_JVM_OPTIONS);
    for (int i = 0; i < count; i++) {
        options[i].extraInfo = NULL;
    }
    JavaVMInitArgs args = {.version = JNI_VERSION_10, .nOptions = count, .options = options,
                           .ignoreUnrecognized = JNI_FALSE};
    jint rc = create(vm, (void **)env, &args);
    free(copy);
    if (rc != JNI_OK) {
        return fail(b, ncclSystemError, "JNI_CreateJavaVM (%s, Java %s) failed with %d; check OFINET_JVM_OPTIONS",
                    libjvm, version, (int)rc);
    }
    OFINET_INFO("created a Java %s VM from %s (%s)", version, home, source);
    return ncclSuccess;
}

/* The JVM already in the process, attached to; or NULL in *vm when there is none. */
static ncclResult_t existing_jvm(struct boot *b, JavaVM **vm, JNIEnv **env) {
    *vm = NULL;
    created_vms_fn created = (created_vms_fn)dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
    jsize n = 0;
    if (created == NULL || created(vm, 1, &n) != JNI_OK || n < 1) {
        *vm = NULL;
        return ncclSuccess;
    }
    JavaVMAttachArgs attach = {.version = JNI_VERSION_10, .name = "ofinet bootstrap", .group = NULL};
    if ((**vm)->AttachCurrentThreadAsDaemon(*vm, (void **)env, &attach) != JNI_OK) {
        return fail(b, ncclSystemError, "cannot attach to the JVM already running in this process");
    }
    OFINET_INFO("attached to the JVM already running in this process");
    return ncclSuccess;
}

/* Describes and clears the pending Java exception, if any. */
static ncclResult_t java_failed(struct boot *b, JNIEnv *env, const char *what) {
    if (!(*env)->ExceptionCheck(env)) {
        return fail(b, ncclSystemError, "%s failed", what);
    }
    jthrowable thrown = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    jclass object = (*env)->FindClass(env, "java/lang/Object");
    jmethodID to_string = object == NULL ? NULL : (*env)->GetMethodID(env, object, "toString", "()Ljava/lang/String;");
    jstring text = to_string == NULL ? NULL : (jstring)(*env)->CallObjectMethod(env, thrown, to_string);
    const char *chars = text == NULL || (*env)->ExceptionCheck(env) ? NULL : (*env)->GetStringUTFChars(env, text, NULL);
    (*env)->ExceptionClear(env);
    fail(b, ncclSystemError, "%s: %s", what, chars != NULL ? chars : "a Java exception that could not be described");
    if (chars != NULL) {
        (*env)->ReleaseStringUTFChars(env, text, chars);
    }
    return b->result;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The jars in <dir>/ofinet, sorted; returns how many, or -1. Free each and the array. */
static int list_jars(const char *dir, char **jars, int max) {
    char path[PATH_MAX];
    if (join_path(path, sizeof path, dir, "ofinet") != 0) {
        return -1;
    }
    DIR *d = opendir(path);
    if (d == NULL) {
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".jar") == 0) {
            char jar[PATH_MAX];
            if (join_path(jar, sizeof jar, path, e->d_name) == 0 && (jars[n] = strdup(jar)) != NULL) {
                n++;
            }
        }
    }
    closedir(d);
    qsort(jars, n, sizeof jars[0], by_name);
    return n;
}

/* A URLClassLoader over the jars, below the platform class loader: the host's class path stays out. */
static jobject class_loader(struct boot *b, JNIEnv *env, char **jars, int n) {
    jclass file = (*env)->FindClass(env, "java/io/File");
    jclass uri = (*env)->FindClass(env, "java/net/URI");
    jclass url = (*env)->FindClass(env, "java/net/URL");
    jclass loader = (*env)->FindClass(env, "java/lang/ClassLoader");
    jclass url_loader = (*env)->FindClass(env, "java/net/URLClassLoader");
    if (file == NULL || uri == NULL || url == NULL || loader == NULL || url_loader == NULL) {
        java_failed(b, env, "finding the JDK's class loader classes");
        return NULL;
    }
    jmethodID new_file = (*env)->GetMethodID(env, file, "<init>", "(Ljava/lang/String;)V");
    jmethodID to_uri = (*env)->GetMethodID(env, file, "toURI", "()Ljava/net/URI;");
    jmethodID to_url = (*env)->GetMethodID(env, uri, "toURL", "()Ljava/net/URL;");
    jmethodID platform = (*env)->GetStaticMethodID(env, loader, "getPlatformClassLoader", "()Ljava/lang/ClassLoader;");
    jmethodID new_loader = (*env)->GetMethodID(env, url_loader, "<init>",
                                               "(Ljava/lang/String;[Ljava/net/URL;Ljava/lang/ClassLoader;)V");
    if (new_file == NULL || to_uri == NULL || to_url == NULL || platform == NULL || new_loader == NULL) {
        java_failed(b, env, "finding the JDK's class loader methods");
        return NULL;
    }
    jobjectArray urls = (*env)->NewObjectArray(env, n, url, NULL);
    for (int i = 0; urls != NULL && i < n; i++) {
        jstring path = (*env)->NewStringUTF(env, jars[i]);
        jobject f = path == NULL ? NULL : (*env)->NewObject(env, file, new_file, path);
        jobject u = f == NULL ? NULL : (*env)->CallObjectMethod(env, f, to_uri);
        jobject l = u == NULL ? NULL : (*env)->CallObjectMethod(env, u, to_url);
        if (l == NULL) {
            java_failed(b, env, jars[i]);
            return NULL;
        }
        (*env)->SetObjectArrayElement(env, urls, i, l);
        (*env)->DeleteLocalRef(env, path);
        (*env)->DeleteLocalRef(env, f);
        (*env)->DeleteLocalRef(env, u);
        (*env)->DeleteLocalRef(env, l);
    }
    jobject parent = urls == NULL ? NULL : (*env)->CallStaticObjectMethod(env, loader, platform);
    jstring name = parent == NULL ? NULL : (*env)->NewStringUTF(env, "ofinet");
    jobject result = name == NULL ? NULL : (*env)->NewObject(env, url_loader, new_loader, name, urls, parent);
    if (result == NULL) {
        java_failed(b, env, "creating ofinet's class loader");
    }
    return result;
}

/* Loads the bridge through its own class loader and lets it fill ofinet_java. */
static ncclResult_t load_bridge(struct boot *b, JNIEnv *env) {
    char dir[PATH_MAX];
    char *jars[OFINET_MAX_JARS];
    if (library_dir(dir, sizeof dir) != 0) {
        return fail(b, ncclSystemError, "cannot find the directory libnccl-net-ofinet.so was loaded from");
    }
    int n = list_jars(dir, jars, OFINET_MAX_JARS);
    if (n <= 0) {
        if (n == 0) {
            return fail(b, ncclSystemError, "no jars in %s/ofinet: the library must sit beside its ofinet/ directory", dir);
        }
        return fail(b, ncclSystemError, "cannot read %s/ofinet: the library must sit beside its ofinet/ directory", dir);
    }
    jobject loader = class_loader(b, env, jars, n);
    for (int i = 0; i < n; i++) {
        free(jars[i]);
    }
    if (loader == NULL) {
        return b->result;
    }
    jclass class_class = (*env)->FindClass(env, "java/lang/Class");
    jmethodID for_name = class_class == NULL ? NULL : (*env)->GetStaticMethodID(env, class_class, "forName",
                            "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;");
    jstring bridge_name = for_name == NULL ? NULL : (*env)->NewStringUTF(env, OFINET_BRIDGE_CLASS);
    jclass bridge = bridge_name == NULL ? NULL
                    : (jclass)(*env)->CallStaticObjectMethod(env, class_class, for_name, bridge_name, JNI_TRUE, loader);
    if (bridge == NULL || (*env)->ExceptionCheck(env)) {
        /* An UnsupportedClassVersionError here names a host JVM older than the bridge's classes. */
        return java_failed(b, env, "loading " OFINET_BRIDGE_CLASS);
    }
    jmethodID boot = (*env)->GetStaticMethodID(env, bridge, "bootstrap", "(JJIJ)Ljava/lang/String;");
    if (boot == NULL) {
        return java_failed(b, env, OFINET_BRIDGE_CLASS ".bootstrap");
    }
    int count = (int)(sizeof entry_names / sizeof entry_names[0]);
    jstring error = (jstring)(*env)->CallStaticObjectMethod(env, bridge, boot, (jlong)(intptr_t)&ofinet_java,
                                                           (jlong)(intptr_t)entry_names, (jint)count,
                                                           (jlong)(intptr_t)&ofinet_log_from_java);
    if ((*env)->ExceptionCheck(env)) {
        return java_failed(b, env, OFINET_BRIDGE_CLASS ".bootstrap");
    }
    if (error != NULL) {
        const char *chars = (*env)->GetStringUTFChars(env, error, NULL);
        fail(b, ncclSystemError, "%s", chars != NULL ? chars : "the bridge refused to start");
        if (chars != NULL) {
            (*env)->ReleaseStringUTFChars(env, error, chars);
        }
        return b->result;
    }
    /* The bridge class (and through it its loader) stays reachable from its upcall stubs; hold it anyway. */
    (*env)->NewGlobalRef(env, bridge);
    return ncclSuccess;
}

static void *boot_thread(void *arg) {
    struct boot *b = arg;
    JavaVM *vm = NULL;
    JNIEnv *env = NULL;
    b->result = existing_jvm(b, &vm, &env);
    if (b->result == ncclSuccess && vm == NULL) {
        b->result = create_jvm(b, &vm, &env);
    }
    if (b->result == ncclSuccess) {
        b->result = load_bridge(b, env);
    }
    if (vm != NULL && (*vm)->DetachCurrentThread(vm) != JNI_OK) {
        OFINET_INFO("the bootstrap thread could not detach from the JVM; it ends attached");
    }
    return NULL;
}

ncclResult_t ofinet_boot(char *err, size_t errlen) {
    pthread_mutex_lock(&boot_lock);
    if (!boot_done) {
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
            fail(&b, ncclSystemError, "cannot start the thread that starts the JVM: %s", strerror(rc));
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
