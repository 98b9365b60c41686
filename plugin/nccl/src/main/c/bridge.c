/*
 * ofinet's classes in the JVM, from the jars in the "ofinet" directory beside this library: in a
 * JVM the library created, those jars are the class path (class_path_option), so the application
 * class loader is ofinet's; in a host's JVM, a class loader of their own, whatever the host's class
 * path. Then the bridge class, which fills ofinet_java with its FFM upcall stubs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <jni.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "ofinet_java.h"

#define OFINET_BRIDGE_CLASS "io.ofinet.nccl.NcclBridge"

static const char *const entry_names[] = {
#define OFINET_JAVA_NAME(name, params) #name,
    OFINET_JAVA_ENTRIES(OFINET_JAVA_NAME)
#undef OFINET_JAVA_NAME
};

int library_dir(char *out, size_t len) {
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

/* Describes and clears the pending Java exception, if any. */
static ncclResult_t java_failed(struct boot *b, JNIEnv *env, const char *what) {
    if (!(*env)->ExceptionCheck(env)) {
        return boot_fail(b, ncclSystemError, "%s failed", what);
    }
    jthrowable thrown = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    jclass object = (*env)->FindClass(env, "java/lang/Object");
    jmethodID to_string = object == NULL ? NULL : (*env)->GetMethodID(env, object, "toString", "()Ljava/lang/String;");
    jstring text = to_string == NULL ? NULL : (jstring)(*env)->CallObjectMethod(env, thrown, to_string);
    const char *chars = text == NULL || (*env)->ExceptionCheck(env) ? NULL : (*env)->GetStringUTFChars(env, text, NULL);
    (*env)->ExceptionClear(env);
    boot_fail(b, ncclSystemError, "%s: %s", what, chars != NULL ? chars : "a Java exception that could not be described");
    if (chars != NULL) {
        (*env)->ReleaseStringUTFChars(env, text, chars);
    }
    return b->result;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_jars(const char *dir, char **jars, int max) {
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
static jobject own_class_loader(struct boot *b, JNIEnv *env, char **jars, int n) {
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

/* The application class loader, whose class path is ofinet's jars when the library created the JVM. */
static jobject system_class_loader(struct boot *b, JNIEnv *env) {
    jclass loader = (*env)->FindClass(env, "java/lang/ClassLoader");
    jmethodID system = loader == NULL ? NULL
                       : (*env)->GetStaticMethodID(env, loader, "getSystemClassLoader", "()Ljava/lang/ClassLoader;");
    jobject result = system == NULL ? NULL : (*env)->CallStaticObjectMethod(env, loader, system);
    if (result == NULL || (*env)->ExceptionCheck(env)) {
        java_failed(b, env, "ClassLoader.getSystemClassLoader");
        return NULL;
    }
    return result;
}

/* The jars in <dir>/ofinet, each a URL of a class loader of their own. */
static jobject jars_class_loader(struct boot *b, JNIEnv *env) {
    char dir[PATH_MAX];
    char *jars[OFINET_MAX_JARS];
    if (library_dir(dir, sizeof dir) != 0) {
        boot_fail(b, ncclSystemError, "cannot find the directory libnccl-net-ofinet.so was loaded from");
        return NULL;
    }
    int n = list_jars(dir, jars, OFINET_MAX_JARS);
    if (n <= 0) {
        if (n == 0) {
            boot_fail(b, ncclSystemError, "no jars in %s/ofinet: the library must sit beside its ofinet/ directory", dir);
        } else {
            boot_fail(b, ncclSystemError, "cannot read %s/ofinet: the library must sit beside its ofinet/ directory", dir);
        }
        return NULL;
    }
    jobject loader = own_class_loader(b, env, jars, n);
    for (int i = 0; i < n; i++) {
        free(jars[i]);
    }
    return loader;
}

ncclResult_t load_bridge(struct boot *b, JNIEnv *env, int on_class_path) {
    jobject loader = on_class_path ? system_class_loader(b, env) : jars_class_loader(b, env);
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
    jmethodID boot = (*env)->GetStaticMethodID(env, bridge, "bootstrap", "(JJIJJ)Ljava/lang/String;");
    if (boot == NULL) {
        return java_failed(b, env, OFINET_BRIDGE_CLASS ".bootstrap");
    }
    int count = (int)(sizeof entry_names / sizeof entry_names[0]);
    jstring error = (jstring)(*env)->CallStaticObjectMethod(env, bridge, boot, (jlong)(intptr_t)&ofinet_java,
                                                           (jlong)(intptr_t)entry_names, (jint)count,
                                                           (jlong)(intptr_t)&ofinet_log_from_java,
                                                           (jlong)(intptr_t)&ofinet_jvm_ending);
    if ((*env)->ExceptionCheck(env)) {
        return java_failed(b, env, OFINET_BRIDGE_CLASS ".bootstrap");
    }
    if (error != NULL) {
        const char *chars = (*env)->GetStringUTFChars(env, error, NULL);
        boot_fail(b, ncclSystemError, "%s", chars != NULL ? chars : "the bridge refused to start");
        if (chars != NULL) {
            (*env)->ReleaseStringUTFChars(env, error, chars);
        }
        return b->result;
    }
    /* The bridge class (and through it its loader) stays reachable from its upcall stubs; hold it anyway. */
    (*env)->NewGlobalRef(env, bridge);
    return ncclSuccess;
}
