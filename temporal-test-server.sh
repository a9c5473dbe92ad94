#!/usr/bin/env bash
# Prints the path of Temporal's time-skipping test server (the one in the Java SDK), obtaining it when
# needed: `durable-agents/testing` runs it with `startTestKit({ timeSkipping: true })` where a test must
# move the clock (deadlines, reminders). The SDK would download a native build from temporal.download;
# this takes the same server from Maven Central instead, with its dependencies (about 38 MB), and a
# launcher that runs it on the machine's Java (17 or later).
#
#   temporal-test-server.sh [path]   print the launcher's path, obtaining it if needed
#
# Settings (environment):
#   TEMPORAL_TEST_SERVER        a test server to use instead (a native build, or a launcher of your own)
#   TEMPORAL_CLI_CACHE          cache folder (default ~/.cache/durable-agents)
#   JAVA_HOME                   the Java to run it with (default: java on PATH)
set -euo pipefail

VERSION=1.38.0
say() { echo "temporal-test-server: $*" >&2; }

case "${1:-path}" in
  path) ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) say "unknown argument '$1' (see --help)"; exit 2 ;;
esac

if [ -n "${TEMPORAL_TEST_SERVER:-}" ]; then
  [ -x "$TEMPORAL_TEST_SERVER" ] || { say "TEMPORAL_TEST_SERVER=$TEMPORAL_TEST_SERVER is not an executable"; exit 1; }
  echo "$TEMPORAL_TEST_SERVER"; exit 0
fi

java=${JAVA_HOME:+$JAVA_HOME/bin/}java
command -v "$java" >/dev/null ||
  { say "no Java to run it with: install a JRE 17 or later (apt-get install -y default-jre-headless) or set JAVA_HOME"; exit 1; }

cache_root=${TEMPORAL_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/durable-agents}
home=$cache_root/temporal-test-server-$VERSION
launcher=$home/temporal-test-server
if [ -x "$launcher" ] && [ -f "$home/lib/temporal-test-server-$VERSION.jar" ]; then echo "$launcher"; exit 0; fi

command -v mvn >/dev/null ||
  { say "Maven (mvn) is needed once, to fetch io.temporal:temporal-test-server:$VERSION from Maven Central"; exit 1; }
mkdir -p "$cache_root"
# Two fresh clones may obtain it at once; the lock keeps them from racing on the cache.
exec 9>"$cache_root/.lock-test-server"
flock 9 2>/dev/null || true
if [ -x "$launcher" ]; then echo "$launcher"; exit 0; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>temporal-test-server-launcher</artifactId><version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>$VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
say "fetching io.temporal:temporal-test-server:$VERSION and its dependencies from Maven Central"
(cd "$tmp" && mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory=lib >&2) ||
  { say "Maven could not fetch it (see above)"; exit 1; }
# The launcher takes the port as its first argument, as the SDK's test-server executable does.
cat >"$tmp/temporal-test-server" <<EOF
#!/usr/bin/env bash
exec "$java" -XX:+UseSerialGC -Xss1m -cp "$home/lib/*" io.temporal.testserver.TestServer "\$@"
EOF
chmod +x "$tmp/temporal-test-server"
rm -rf "$home.tmp.$$" && mkdir -p "$home.tmp.$$" && mv "$tmp/lib" "$tmp/temporal-test-server" "$home.tmp.$$/"
rm -rf "$home" && mv "$home.tmp.$$" "$home"
say "cached the test server $VERSION at $launcher"
echo "$launcher"
