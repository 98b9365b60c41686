# Shared by the bin/ scripts: where the project is, and which JDK to use.
# The build and the tools prefer a JDK 22+ (the FFM data path); Temurin 25 is the one on the
# project's machines. OFINET_JAVA_HOME overrides the choice. In the distribution the launchers start
# the runtime bundled in lib/ofinet/runtime, as NCCL's library does, before JAVA_HOME and the PATH.
# The same file serves the source tree (the scripts build what they run) and the unpacked
# distribution (ofinet-VERSION-linux-x86_64.tar.gz: no pom.xml, the jars in lib/java, nothing built).

OFINET_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -f "$OFINET_ROOT/pom.xml" ]; then
    OFINET_DIST=""
else
    OFINET_DIST=1
fi

ofinet_java_home() {
    if [ -n "${OFINET_JAVA_HOME:-}" ]; then
        echo "$OFINET_JAVA_HOME"
    elif [ -n "$OFINET_DIST" ] && [ -x "$OFINET_ROOT/lib/ofinet/runtime/bin/java" ]; then
        # The distribution's launchers start the runtime NCCL's library starts (INSTALL.md).
        echo "$OFINET_ROOT/lib/ofinet/runtime"
    elif [ -z "$OFINET_DIST" ] && [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
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

# Installs what the scripts need (bin/install-deps: libfabric with its tools and headers, gcc,
# iproute2) when some of it is missing, saying so on stderr; on a system without Debian's package
# tools it only warns. Only the README's two commands (bin/test, bin/ofinet-perf) install; the
# other scripts check with ofinet_require_packages.
ofinet_ensure_deps() {
    if [ -n "$OFINET_DIST" ]; then
        command -v fi_info >/dev/null 2>&1 || echo "ofinet: libfabric's fi_info is not installed: install libfabric" \
            "1.17+ (on Debian or Ubuntu: apt-get install libfabric1 libfabric-bin)" >&2
    elif command -v dpkg-query >/dev/null 2>&1; then
        "$OFINET_ROOT/bin/install-deps" >&2
    elif ! command -v fi_info >/dev/null 2>&1; then
        echo "ofinet: libfabric's fi_info is not installed and this is not a Debian system: install libfabric" \
            "1.17+ with its tools and headers, gcc and iproute2 yourself" >&2
    fi
}

# Checks that the Debian packages given are installed, installing nothing: when some are missing,
# names them and how to install them, and exits. Off Debian (no dpkg-query) it only warns when
# libfabric's fi_info is missing: the package names are Debian's.
ofinet_require_packages() {
    local missing=() p how
    if ! command -v dpkg-query >/dev/null 2>&1; then
        command -v fi_info >/dev/null 2>&1 || echo "ofinet: libfabric's fi_info is not installed and this is not a" \
            "Debian system: install libfabric 1.17+ with its tools and headers, and what $(basename "$0") uses" >&2
        return 0
    fi
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    how="apt-get install ${missing[*]} (as root, or with sudo)"
    [ -n "$OFINET_DIST" ] || how="bin/install-deps ${missing[*]}, or $how"
    echo "ofinet: $(basename "$0") needs ${missing[*]}, not installed: install with $how" >&2
    exit 1
}

# Builds a module (and the modules it needs) with package, in the tree only, when what it builds is
# missing or older than a source or pom of it or of an ofinet module it depends on. What it builds:
# its jar, or the jar that JAR (a path under the module, a glob) names, with the files ALSO... (the
# jars are rewritten on every build: forceCreation). Tests are skipped, not their compilation, so a
# module's C test programs (src/test/c, sources too) are built: plugin/nccl's driver.
#   ofinet_build_if_needed MODULE [JAR [ALSO...]]
ofinet_build_if_needed() {
    local module=$1 pattern=${2:-'target/*-SNAPSHOT.jar'} jar sources=() dep also
    [ -z "$OFINET_DIST" ] || return 0
    jar=$(ls "$OFINET_ROOT/$module"/$pattern 2>/dev/null | grep -v -- '-tests\.jar$' | head -n 1 || true)
    sources+=("$OFINET_ROOT/$module/src/main" "$OFINET_ROOT/$module/pom.xml" "$OFINET_ROOT/pom.xml")
    [ ! -d "$OFINET_ROOT/$module/src/test/c" ] || sources+=("$OFINET_ROOT/$module/src/test/c")
    if [ -f "$OFINET_ROOT/$module/target/runtime-classpath.txt" ]; then
        for dep in $(tr ':' '\n' < "$OFINET_ROOT/$module/target/runtime-classpath.txt" | grep "^$OFINET_ROOT/"); do
            sources+=("${dep%%/target/*}/src/main" "${dep%%/target/*}/pom.xml")
        done
    fi
    for also in "${@:3}"; do
        [ -e "$also" ] || jar=""
    done
    if [ -z "$jar" ] || [ ! -f "$OFINET_ROOT/$module/target/runtime-classpath.txt" ] \
            || [ -n "$(find "${sources[@]}" -newer "$jar" -print -quit 2>/dev/null)" ]; then
        # One build of the tree at a time: the ranks of an mpirun on a stale tree all get here at
        # once. Whoever waited finds the jars built and builds nothing.
        if [ -z "${OFINET_BUILD_LOCKED:-}" ] && command -v flock > /dev/null; then
            OFINET_BUILD_LOCKED=1 flock "$OFINET_ROOT/.build.lock" \
                bash -c 'source "$1/bin/lib/common.sh"; ofinet_build_if_needed "${@:2}"' _ "$OFINET_ROOT" "$@"
            return
        fi
        echo "ofinet: building $module ..." >&2
        (cd "$OFINET_ROOT" && mvn -q -B -ntp -DskipTests -Dmaven.source.skip -Dmaven.javadoc.skip -pl "$module" -am package) >&2
    fi
}

# The runtime classpath of a module: its jar and its dependencies (in the distribution: every jar).
ofinet_classpath() {
    local module=$1 jar
    if [ -n "$OFINET_DIST" ]; then
        echo "$OFINET_ROOT/lib/java/*"
        return
    fi
    jar=$(ls "$OFINET_ROOT/$module"/target/*-SNAPSHOT.jar | grep -v -- '-tests\.jar$' | head -n 1)
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

# The Vector API for the collectives' sum on JDK 25+ where the JDK has it (an incubator module, so
# the JVM prints a warning that it is in use; see tools/.../coll/FloatSum.java).
ofinet_vector_module() {
    local modules release
    modules=$(java --list-modules 2>/dev/null)
    release=$(sed -n 's/^java\.base@\([0-9]*\).*/\1/p' <<< "$modules")
    if [ "$release" -ge 25 ] 2>/dev/null && grep -q '^jdk\.incubator\.vector@' <<< "$modules"; then
        echo "--add-modules=jdk.incubator.vector"
    fi
}

# ofinet-perf's module and main class in the checkout DIR, for a baseline of bin/ofinet-compare: the
# tools module (io.ofinet.tools.perf), or in older checkouts integration-tests (io.ofinet.it.perf).
ofinet_perf_module() {
    if [ -d "$1/tools/src/main/java/io/ofinet/tools/perf" ]; then echo tools; else echo integration-tests; fi
}
ofinet_perf_main() {
    if [ "$(ofinet_perf_module "$1")" = tools ]; then
        echo io.ofinet.tools.perf.OfinetPerf
    else
        echo io.ofinet.it.perf.OfinetPerf
    fi
}
