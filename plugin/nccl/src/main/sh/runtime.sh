#!/usr/bin/env bash
# Makes ofinet/runtime beside the library: the Java runtime the library starts by default
# (docs/NCCL.md, "The bundled runtime"), linked by jlink from the build's JDK with only the modules
# ofinet's jars need, without debug attributes, man pages or headers, uncompressed (a compressed
# image is inflated at every start, on the rank's critical path). Its release file carries the
# build JDK's IMPLEMENTOR, IMPLEMENTOR_VERSION, JAVA_RUNTIME_VERSION and JAVA_VERSION_DATE, which
# jlink leaves out: the AOT cache's .id names the runtime by them. jlink keeps the OpenJDK legal
# notices in legal/. Run by Maven at package (plugin/nccl/pom.xml), before aot-cache.sh, which
# trains the AOT cache with this runtime.
#
# usage: runtime.sh LIBRARY_DIR JAVA_HOME MODULES [SKIP]
#   MODULES is jlink's --add-modules list. A runtime there before is removed first; SKIP=true
#   stops there, and the library then starts JAVA_HOME's JDK or the build's.
set -euo pipefail

lib=$1 java_home=$2 modules=$3 skip=${4:-false}
runtime=$lib/ofinet/runtime
rm -rf "$runtime"
if [ "$skip" = true ]; then
    echo "runtime: skipped: no Java runtime beside the library"
    exit 0
fi
if [ ! -x "$java_home/bin/jlink" ]; then
    echo "runtime: $java_home has no jlink to make the runtime with (skip with -Dofinet.runtime.skip=true)" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -E '^(IMPLEMENTOR|IMPLEMENTOR_VERSION|JAVA_RUNTIME_VERSION|JAVA_VERSION_DATE)=' "$java_home/release" \
    > "$work/release-info" || true
mkdir -p "$lib/ofinet"
# A JDK without jmods links from its own image (JEP 493), when it was built to allow that.
if ! "$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
        --release-info "$work/release-info" --output "$runtime" > "$work/jlink.log" 2>&1; then
    cat "$work/jlink.log" >&2
    rm -rf "$runtime"
    echo "runtime: jlink failed: no Java runtime made; a JDK with jmods, or one that links from its own image," \
        "can make it (skip with -Dofinet.runtime.skip=true)" >&2
    exit 1
fi
echo "runtime: $runtime ($(du -sk "$runtime" | cut -f1) KiB) of $modules, from $java_home"
