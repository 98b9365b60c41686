#!/usr/bin/env bash
# Makes ofinet's multi-release jars beside the library single-release: the classes of
# META-INF/versions/N (N at most the build JDK's feature version, in increasing order) replace
# those of the root, and the manifest loses its Multi-Release attribute. The library runs only on
# a JDK 22 or newer, where the JVM would pick the same classes; but HotSpot's AOT cache takes no
# class from a jar's versions directory (it logs "Unsupported location"), which left the FFM data
# path out of the cache (docs/NCCL.md, "The AOT cache"). Run by Maven at package
# (plugin/nccl/pom.xml), after the jars are copied and before the runtime and the cache are made.
# A jar already single-release is left as it is.
#
# usage: flat-jars.sh LIBRARY_DIR JAVA_HOME
set -euo pipefail

lib=$1 java_home=$2
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$java_home/release")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for jar in "$lib"/ofinet/ofinet-*.jar; do
    rm -rf "$work/x" && mkdir "$work/x"
    (cd "$work/x" && "$java_home/bin/jar" xf "$jar")
    [ -d "$work/x/META-INF/versions" ] || continue
    for n in $(cd "$work/x/META-INF/versions" && ls | sort -n); do
        if [ "$n" -le "${feature:-0}" ]; then
            cp -r "$work/x/META-INF/versions/$n/." "$work/x/"
        fi
    done
    rm -rf "$work/x/META-INF/versions"
    grep -v '^Multi-Release:' "$work/x/META-INF/MANIFEST.MF" > "$work/manifest"
    rm "$work/x/META-INF/MANIFEST.MF"
    "$java_home/bin/jar" --create --file "$work/flat.jar" --manifest "$work/manifest" -C "$work/x" .
    mv "$work/flat.jar" "$jar"
    echo "flat-jars: $(basename "$jar"): single-release, as Java $feature reads it"
done
