# Shared by the bin/ scripts: where the project is, and which JDK to use.
# The build and the tools prefer a JDK 22+ (the FFM data path); Temurin 25 is the one on the
# project's machines. OFINET_JAVA_HOME overrides the choice.

OFINET_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

ofinet_java_home() {
    if [ -n "${OFINET_JAVA_HOME:-}" ]; then
        echo "$OFINET_JAVA_HOME"
    elif [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
        echo /usr/lib/jvm/temurin-25-jdk-amd64
    elif [ -n "${JAVA_HOME:-}" ]; then
        echo "$JAVA_HOME"
    else
        dirname "$(dirname "$(readlink -f "$(command -v java)")")"
    fi
}

export JAVA_HOME=$(ofinet_java_home)
export PATH="$JAVA_HOME/bin:$PATH"
# Debian's libfabric loads psm's libinfinipath, which otherwise installs its own SIGSEGV handler
# and kills the JVM at its first implicit null check.
export IPATH_NO_BACKTRACE=1 HFI_NO_BACKTRACE=1

# Builds the named modules (and what they need) when their jar is missing or older than a source.
ofinet_build_if_needed() {
    local module=$1 jar
    jar=$(ls "$OFINET_ROOT/$module"/target/*-SNAPSHOT.jar 2>/dev/null | grep -v tests | head -n 1 || true)
    if [ -z "$jar" ] || [ -n "$(find "$OFINET_ROOT" -path '*/src/main/*' -newer "$jar" -print -quit)" ] \
            || [ ! -f "$OFINET_ROOT/$module/target/runtime-classpath.txt" ]; then
        echo "ofinet: building $module ..." >&2
        (cd "$OFINET_ROOT" && mvn -q -B -ntp -DskipTests -pl "$module" -am install) >&2
    fi
}

# The runtime classpath of a module: its jar and its dependencies.
ofinet_classpath() {
    local module=$1 jar
    jar=$(ls "$OFINET_ROOT/$module"/target/*-SNAPSHOT.jar | grep -v tests | head -n 1)
    echo "$jar:$(cat "$OFINET_ROOT/$module/target/runtime-classpath.txt")"
}

# --enable-native-access for JDKs that know it (JNA and FFM load native code; without the flag
# JDK 24+ prints a warning).
ofinet_native_access() {
    local v
    v=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [ "${v%%.*}" -ge 21 ] 2>/dev/null; then
        echo "--enable-native-access=ALL-UNNAMED"
    fi
}
