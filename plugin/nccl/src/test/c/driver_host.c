/*
 * nccl_driver hostjvm: a host that runs a JVM of its own before it loads the library, created from
 * the libjvm of OFINET_JAVA_HOME, which it loaded privately (RTLD_LOCAL, as Python's ctypes and
 * Rust's libloading load a library), so that its symbols are not global. The library's init must
 * find that JVM and run in it: a second JVM in one process is not supported, and the same libjvm
 * refuses to create one. Then the host connects to itself through the table and moves a verified
 * message, and the host's libjvm still counts one JVM.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"

#define HOST_BYTES 8192
/* The stack of the thread that creates the host's JVM (HotSpot's own launcher creates it off the primordial thread). */
#define CREATE_STACK_BYTES (8 * MiB)

typedef jint(JNICALL *create_vm_fn)(JavaVM **, void **, void *);
typedef jint(JNICALL *created_vms_fn)(JavaVM **, jsize, jsize *);

struct host_jvm {
    create_vm_fn create;
    JavaVM *vm;
    jint result;
};

/* Creates the host's JVM on a thread of its own, which detaches as it ends. */
static void *create_host_jvm(void *arg) {
    struct host_jvm *h = arg;
    JavaVMOption options[] = {{.optionString = "-Xrs"}, {.optionString = "-Xmx256m"},
                             {.optionString = "--enable-native-access=ALL-UNNAMED"}};
    JavaVMInitArgs args = {.version = JNI_VERSION_10, .nOptions = 3, .options = options,
                           .ignoreUnrecognized = JNI_FALSE};
    JNIEnv *env = NULL;
    h->result = h->create(&h->vm, (void **)&env, &args);
    if (h->result == JNI_OK) {
        (*h->vm)->DetachCurrentThread(h->vm);
    }
    return NULL;
}

/* How many JVMs the host's libjvm counts; -1 when it cannot say. */
static int jvms_of(void *libjvm) {
    created_vms_fn created = (created_vms_fn)dlsym(libjvm, "JNI_GetCreatedJavaVMs");
    JavaVM *vm = NULL;
    jsize n = 0;
    return created != NULL && created(&vm, 1, &n) == JNI_OK ? (int)n : -1;
}

/* Loads OFINET_JAVA_HOME's libjvm privately and creates the host's JVM; the library's handle, or NULL. */
static void *host_jvm(void) {
    const char *home = getenv("OFINET_JAVA_HOME");
    char path[PATH_MAX];
    if (home == NULL || snprintf(path, sizeof path, "%s/lib/server/libjvm.so", home) >= (int)sizeof path) {
        check(0, "OFINET_JAVA_HOME names the JDK the host runs");
        return NULL;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    struct host_jvm h = {.create = lib == NULL ? NULL : (create_vm_fn)dlsym(lib, "JNI_CreateJavaVM"), .result = -1};
    check(h.create != NULL, "the host loads %s privately", path);
    check(dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs") == NULL, "the JVM's symbols are not the process's");
    pthread_attr_t attr;
    pthread_t thread;
    if (h.create == NULL || pthread_attr_init(&attr) != 0) {
        return NULL;
    }
    pthread_attr_setstacksize(&attr, CREATE_STACK_BYTES);
    int started = pthread_create(&thread, &attr, create_host_jvm, &h) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
        pthread_join(thread, NULL);
    }
    check(started && h.result == JNI_OK, "the host creates its JVM (%d)", (int)h.result);
    return started && h.result == JNI_OK ? lib : NULL;
}

int run_host_jvm(void) {
    driver_side = "hostjvm";
    void *libjvm = host_jvm();
    void *ctx = NULL, *listen = NULL;
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    ncclNet_v12_t *net = libjvm == NULL ? NULL : table_and_context(&ctx);
    if (net == NULL || net->listen(ctx, 0, handle, &listen) != ncclSuccess) {
        check(0, "init and listen in the host's JVM");
        return 1;
    }
    check(jvms_of(libjvm) == 1, "the host's libjvm counts one JVM (%d)", jvms_of(libjvm));
    check(self_round_trip(net, ctx, handle, listen, HOST_BYTES), "the host connects to itself and moves %d verified"
          " bytes", HOST_BYTES);
    check(net->closeListen(listen) == ncclSuccess && net->finalize(ctx) == ncclSuccess, "closeListen and finalize");
    printf("hostjvm: %d checks passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}
