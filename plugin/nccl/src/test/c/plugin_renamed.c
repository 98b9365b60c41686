/*
 * libnccl-net-renamed.so: ofinet's v12 table under another name, "renamed", for the driver's tests
 * of another plugin (NcclDriverIT): the driver must take it for a plugin other than ofinet (by the
 * table's name) and run bench and startup without their readings of ofinet's JVM, while the calls
 * themselves go to ofinet, found through LD_LIBRARY_PATH when this library is loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nccl_abi.h"

ncclNet_v12_t ncclNetPlugin_v12;

static ncclResult_t no_ofinet(void **ctx, uint64_t id, ncclNetCommConfig_v12_t *config, ncclDebugLogger_t logger,
                              ncclProfilerCallback_t profiler) {
    (void)ctx, (void)id, (void)config, (void)logger, (void)profiler;
    return ncclSystemError;
}

__attribute__((constructor)) static void copy_ofinet_table(void) {
    void *lib = dlopen("libnccl-net-ofinet.so", RTLD_NOW | RTLD_LOCAL);
    const ncclNet_v12_t *ofinet = lib == NULL ? NULL : (const ncclNet_v12_t *)dlsym(lib, "ncclNetPlugin_v12");
    if (ofinet == NULL) {
        fprintf(stderr, "libnccl-net-renamed.so: no ofinet table through LD_LIBRARY_PATH: %s\n", dlerror());
        ncclNetPlugin_v12.init = no_ofinet;
    } else {
        memcpy(&ncclNetPlugin_v12, ofinet, sizeof ncclNetPlugin_v12);
    }
    ncclNetPlugin_v12.name = "renamed";
}
