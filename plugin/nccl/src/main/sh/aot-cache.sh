#!/usr/bin/env bash
# Makes libnccl-net-ofinet.aot beside the library: the AOT cache of ofinet's classes, loaded and
# linked (JEP 483), with the method profiles (JEP 515) of a training run made in one step (JEP 514):
# the C driver's `train` through the library, on tcp;ofi_rxm over loopback, on the runtime the
# library starts by default: the one bundled beside it (ofinet/runtime, made by runtime.sh), else
# JAVA_HOME. HotSpot uses a cache only with the runtime image it was made with.
# The training run goes through the library, so it runs with the JVM's options a rank gets
# (collector, heap: docs/NCCL.md, "The JVM's options"), which the cache is made with.
# Beside it, libnccl-net-ofinet.aot.id names that runtime and the jars, for the library to check
# (docs/NCCL.md, "The AOT cache"). Run by Maven at package (plugin/nccl/pom.xml).
#
# usage: aot-cache.sh LIBRARY_DIR JAVA_HOME DRIVER [SKIP]
#   A cache there before is removed first; SKIP=true stops there.
set -euo pipefail

lib=$1 java_home=$2 driver=$3 skip=${4:-false}
cache=$lib/libnccl-net-ofinet.aot
rm -f "$cache" "$cache.id"
if [ "$skip" = true ]; then
    echo "aot-cache: skipped: no AOT cache beside the library"
    exit 0
fi
if [ -f "$lib/ofinet/runtime/release" ]; then
    java_home=$lib/ofinet/runtime
fi
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$java_home/release")
if [ "${feature:-0}" -lt 25 ]; then
    echo "aot-cache: Java ${feature:-?} at $java_home makes no AOT cache in one step (JDK 25+): none made"
    exit 0
fi
if [ ! -x "$driver" ]; then
    echo "aot-cache: no C driver at $driver to train with (skip with -Dofinet.aot.skip=true)" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/tcp.json" <<'JSON'
{"devices": [{"name": "tcp", "dataRails": [{"provider": "tcp;ofi_rxm", "domain": "lo", "srcAddr": "127.0.0.1"}]}]}
JSON
start=$SECONDS
# The driver opens the library NCCL_NET_PLUGIN names: the training run is ofinet's own.
unset NCCL_NET_PLUGIN
if ! (cd "$work" && LD_LIBRARY_PATH=$lib OFINET_JAVA_HOME=$java_home OFINET_LAYOUT=$work/tcp.json \
        OFINET_AOT_CACHE=off OFINET_WARM_UP=off OFINET_JVM_OPTIONS="-XX:AOTCacheOutput=$work/cache.aot" \
        "$driver" train > "$work/train.log" 2>&1) || [ ! -s "$work/cache.aot" ]; then
    cat "$work/train.log" >&2
    echo "aot-cache: the training run failed: no AOT cache made (skip with -Dofinet.aot.skip=true)" >&2
    exit 1
fi
{
    grep -E '^(IMPLEMENTOR|JAVA_RUNTIME_VERSION|MODULES)=' "$java_home/release"
    for jar in $(cd "$lib/ofinet" && LC_ALL=C ls -- *.jar); do
        echo "$jar $(stat -c %s "$lib/ofinet/$jar")"
    done
} > "$work/cache.aot.id"
mv "$work/cache.aot" "$cache"
mv "$work/cache.aot.id" "$cache.id"
echo "aot-cache: $cache ($(du -k "$cache" | cut -f1) KiB) made by $java_home," \
    "$(grep '^JAVA_RUNTIME_VERSION=' "$java_home/release"), in $((SECONDS - start)) s"
