#!/usr/bin/env bash
# Makes ofinet's multi-release jars beside the library single-release: the classes of
# META-INF/versions/N (N from 9 to 22, in increasing order) replace those of the root, and the
# manifest loses its Multi-Release attribute. The library runs only on a JDK 22 or newer, where the
# JVM picks the same classes; but HotSpot's AOT cache takes no class from a jar's versions directory
# (it logs "Unsupported location"), which left the FFM data path out of the cache (docs/NCCL.md,
# "The AOT cache"). A version above 22 would be lost on a JDK 22 host, so one fails the build.
# Run by Maven at package (plugin/nccl/pom.xml), after maven-dependency-plugin copied the jars
# (declared before exec-maven-plugin, whose executions of the same phase run after its own) and
# before the runtime and the cache are made. A jar already single-release is left as it is.
#
# usage: flat-jars.sh LIBRARY_DIR JAVA_HOME
set -euo pipefail
shopt -s nullglob

lib=$(cd "$1" && pwd) java_home=$2
oldest=22 # the oldest JDK the library starts (docs/NCCL.md)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for jar in "$lib"/ofinet/ofinet-*.jar; do
    listing=$("$java_home/bin/jar" tf "$jar")
    if ! grep -q '^META-INF/versions/' <<< "$listing"; then
        continue
    fi
    rm -rf "$work/x" && mkdir "$work/x"
    (cd "$work/x" && "$java_home/bin/jar" xf "$jar")
    for n in $(cd "$work/x/META-INF/versions" && ls | sort -n); do
        if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -gt "$oldest" ]; then
            echo "flat-jars: $(basename "$jar") has META-INF/versions/$n, which a JDK $oldest host would not read" >&2
            exit 1
        fi
        cp -r "$work/x/META-INF/versions/$n/." "$work/x/"
    done
    rm -rf "$work/x/META-INF/versions"
    grep -v '^Multi-Release:' "$work/x/META-INF/MANIFEST.MF" > "$work/manifest"
    rm "$work/x/META-INF/MANIFEST.MF"
    # Written beside the jar, then renamed over it: an interrupted build leaves the jar whole.
    "$java_home/bin/jar" --create --file "$jar.flat" --manifest "$work/manifest" -C "$work/x" .
    mv "$jar.flat" "$jar"
    echo "flat-jars: $(basename "$jar"): single-release, as a JDK $oldest reads it"
done
