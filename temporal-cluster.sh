#!/usr/bin/env bash
# A production-shaped Temporal server on this machine, for the tests and for trying a worker the way a
# cluster runs it: Temporal Server built from its Go module (cached per user), PostgreSQL for persistence
# and SQL visibility (schemas set up by temporal-sql-tool), the frontend, history, matching and worker
# services as four processes, and TLS between clients and the frontend (a CA of its own).
#
#   temporal-cluster.sh build                   build the server and temporal-sql-tool once; print the folder
#   temporal-cluster.sh start --dir DIR         start it all under DIR; print the frontend's address
#   temporal-cluster.sh stop --dir DIR          stop what start started (the data stays; start starts it again)
#   temporal-cluster.sh destroy --dir DIR       stop it and remove its data
#   temporal-cluster.sh restart NAME --dir DIR  stop and start one process: frontend, history, matching,
#                                               worker or postgres
#   temporal-cluster.sh env --dir DIR           print what a client needs, as `export` lines (envconfig's
#                                               TEMPORAL_ADDRESS, TEMPORAL_TLS_SERVER_CA_CERT_PATH, ...)
#
# Settings: TEMPORAL_SERVER_CACHE (default ~/.cache/durable-agents), TEMPORAL_NAMESPACE (default "default"),
# TEMPORAL_CLUSTER_CA (a folder with ca.pem and ca.key that signs the frontend's certificate, instead of a
# CA of its own: the tests give every cluster of a run one CA, so one client setting reaches them all).
# Needs Go (it fetches the toolchain the server asks for from the Go module proxy), PostgreSQL's server
# programs (Debian: apt-get install -y postgresql), openssl and python3. A cold build takes about 4 minutes
# on 2 cores; docs/guides/cluster.md says more.
set -euo pipefail

SERVER_VERSION=1.32.2
# v1.32.2 asks for Go >= 1.26.10; the go command takes this approved toolchain from the module proxy.
GO_TOOLCHAIN=go1.27.3
SERVICES=(frontend history matching worker)
SEARCH_ATTRIBUTES=(AgentId=Keyword AgentStatus=Keyword AgentThreadId=Keyword AgentResourceId=Keyword AgentPendingToolCalls=KeywordList)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TEMPORAL_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/durable-agents}/temporal-server-$SERVER_VERSION
namespace=${TEMPORAL_NAMESPACE:-default}

say() { echo "temporal-cluster: $*" >&2; }
fail() { say "$*"; exit 1; }

cmd=${1:-}; [ $# -gt 0 ] && shift
target=
case "$cmd" in
  build|start|stop|destroy|env) ;;
  restart) target=${1:-}; [ $# -gt 0 ] && shift ;;
  -h|--help|'') awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) fail "unknown command '$cmd' (see --help)" ;;
esac
dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    *) fail "unknown argument '$1' (see --help)" ;;
  esac
done

built() { [ -x "$cache/bin/temporal-server" ] && [ -x "$cache/bin/temporal-sql-tool" ] && [ -d "$cache/schema" ]; }

build() {
  built && { echo "$cache"; return; }
  command -v go >/dev/null || fail "Go is needed to build Temporal Server $SERVER_VERSION from its module"
  mkdir -p "$(dirname "$cache")"
  # Two test runs may build at once; the lock keeps them from racing on the cache.
  exec 8>"$cache.lock"
  flock 8 2>/dev/null || true
  built && { echo "$cache"; return; }
  local tmp src start=$SECONDS
  tmp=$(mktemp -d "$cache.build.XXXXXX")
  say "building go.temporal.io/server@v$SERVER_VERSION with $GO_TOOLCHAIN (a few minutes, once)"
  export GOTOOLCHAIN=$GO_TOOLCHAIN GOFLAGS=-modcacherw
  (cd "$tmp" && CGO_ENABLED=0 GOBIN=$tmp/bin go install "go.temporal.io/server/cmd/server@v$SERVER_VERSION" \
    "go.temporal.io/server/cmd/tools/sql@v$SERVER_VERSION") >&2 || { rm -rf "$tmp"; fail "the build failed"; }
  src=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "go.temporal.io/server@v$SERVER_VERSION" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  mv "$tmp/bin/server" "$tmp/bin/temporal-server"
  mv "$tmp/bin/sql" "$tmp/bin/temporal-sql-tool"
  mkdir -p "$tmp/schema"
  cp -R "$src/schema/postgresql/v12/temporal" "$src/schema/postgresql/v12/visibility" "$tmp/schema/"
  chmod -R u+w "$tmp"
  rm -rf "$cache" && mv "$tmp" "$cache"
  say "built Temporal Server $SERVER_VERSION in $((SECONDS - start)) s: $cache"
  echo "$cache"
}

[ "$cmd" = build ] && { build; exit 0; }
[ -n "$dir" ] || fail "--dir DIR is needed: where the cluster keeps its data, config, logs and certificates"
if [ "$cmd" = start ]; then mkdir -p "$dir"; fi
[ -d "$dir" ] || fail "no cluster in $dir: start one there first (temporal-cluster.sh start --dir $dir)"
dir=$(cd "$dir" && pwd)

# The ports and folders start chose; every other command needs them.
load_ports() {
  [ -f "$dir/ports.env" ] || fail "no cluster in $dir (no ports.env): start one there first"
  # shellcheck disable=SC1091
  . "$dir/ports.env"
}

# Below 32768: the server keeps membership ports in a smallint column, and the kernel's ephemeral range is above.
free_port() {
  python3 -c '
import random, socket
for _ in range(200):
    port = random.randrange(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
'
}

# PostgreSQL refuses to run as root: as root, its programs run as the postgres user (Debian's package makes it).
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_bin() {
  local ctl
  ctl=$(command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | tail -n 1 || true)
  [ -n "$ctl" ] || fail "PostgreSQL's server programs are missing: apt-get install -y postgresql"
  dirname "$(readlink -f "$ctl")"
}

pg_start() {
  as_pg "$(pg_bin)/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/postgres.log" -w -t 60 start \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300" >/dev/null
}
pg_stop() { as_pg "$(pg_bin)/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true; }

pg_init() {
  # As root, the data lives where the postgres user may reach it: a folder of its own, not under DIR.
  if [ "$(id -u)" = 0 ]; then
    PG_DIR=$(mktemp -d /tmp/temporal-cluster-pg.XXXXXX)
    chown postgres: "$PG_DIR"
  else
    PG_DIR=$dir/pg
    mkdir -p "$PG_DIR"
  fi
  as_pg "$(pg_bin)/initdb" -D "$PG_DIR/data" -U temporal --auth=trust -E UTF8 >"$PG_DIR/initdb.log" 2>&1 ||
    fail "initdb failed: $PG_DIR/initdb.log"
  pg_start
  local sql=("$cache/bin/temporal-sql-tool" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u temporal --pw temporal)
  for db in temporal:temporal temporal_visibility:visibility; do
    { "${sql[@]}" --db "${db%%:*}" create &&
      "${sql[@]}" --db "${db%%:*}" setup-schema -v 0.0 &&
      "${sql[@]}" --db "${db%%:*}" update-schema -d "$cache/schema/${db#*:}/versioned"; } >>"$PG_DIR/schema.log" 2>&1 ||
      fail "the ${db%%:*} schema could not be set up: $PG_DIR/schema.log"
  done
}

tls_init() {
  mkdir -p "$dir/tls" && cd "$dir/tls"
  {
    if [ -n "${TEMPORAL_CLUSTER_CA:-}" ]; then
      cp "$TEMPORAL_CLUSTER_CA/ca.pem" "$TEMPORAL_CLUSTER_CA/ca.key" .
    else
      openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 -subj "/CN=durable-agents test CA"
    fi
    openssl req -newkey rsa:2048 -nodes -keyout frontend.key -out frontend.csr -subj "/CN=localhost"
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >frontend.ext
    openssl x509 -req -in frontend.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out frontend.pem -days 30 \
      -extfile frontend.ext
  } >"$dir/tls/openssl.log" 2>&1 || fail "the certificates could not be made: $dir/tls/openssl.log"
  cd - >/dev/null
}

write_config() {
  local svc ports=""
  for svc in "${SERVICES[@]}"; do
    local grpc member http=
    grpc=$(free_port); member=$(free_port)
    [ "$svc" = frontend ] && http="
      httpPort: $(free_port)"
    ports+="
  $svc:
    rpc:
      grpcPort: $grpc
      membershipPort: $member
      bindOnLocalHost: true$http"
    [ "$svc" = frontend ] && FRONTEND_PORT=$grpc
  done
  store() {
    printf '    %s:\n      sql:\n        pluginName: postgres12\n        databaseName: %s\n' "$1" "$2"
    printf '        connectAddr: "127.0.0.1:%s"\n        connectProtocol: tcp\n' "$PG_PORT"
    printf '        user: temporal\n        password: temporal\n        maxConns: %s\n        maxIdleConns: %s\n' "$3" "$3"
    printf '        maxConnLifetime: 1h\n'
  }
  cat >"$dir/config.yaml" <<EOF
log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
$(store postgres-default temporal 20)
$(store postgres-visibility temporal_visibility 10)
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  tls:
    frontend:
      server:
        certFile: $dir/tls/frontend.pem
        keyFile: $dir/tls/frontend.key
      client:
        serverName: localhost
        rootCaFiles: [$dir/tls/ca.pem]
    systemWorker:
      client:
        serverName: localhost
        rootCaFiles: [$dir/tls/ca.pem]
services:$ports
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: localhost:$FRONTEND_PORT
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: $dir/dynamicconfig.yaml
  pollInterval: 10s
EOF
  # A new search attribute is seen at once (the tests register them, then start runs that set them).
  printf 'system.forceSearchAttributesCacheRefreshOnRead:\n  - value: true\n' >"$dir/dynamicconfig.yaml"
  printf 'PG_PORT=%s\nPG_DIR=%s\nFRONTEND_PORT=%s\n' "$PG_PORT" "$PG_DIR" "$FRONTEND_PORT" >"$dir/ports.env"
}

service_start() {
  local svc=$1
  nohup "$cache/bin/temporal-server" --config-file "$dir/config.yaml" --allow-no-auth start --service "$svc" \
    >>"$dir/$svc.log" 2>&1 &
  echo $! >"$dir/$svc.pid"
}
service_stop() {
  local pidfile=$dir/$1.pid pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$pidfile"
}

client_env() {
  printf 'export TEMPORAL_ADDRESS=localhost:%s\n' "$FRONTEND_PORT"
  printf 'export TEMPORAL_NAMESPACE=%s\n' "$namespace"
  printf 'export TEMPORAL_TLS=true\n'
  printf 'export TEMPORAL_TLS_SERVER_CA_CERT_PATH=%s\n' "$dir/tls/ca.pem"
  printf 'export TEMPORAL_TLS_SERVER_NAME=localhost\n'
}

cli() {
  local tcli
  tcli=$(bash "$here/temporal-dev.sh" cli)
  TEMPORAL_ADDRESS=localhost:$FRONTEND_PORT TEMPORAL_TLS_SERVER_CA_CERT_PATH=$dir/tls/ca.pem \
    TEMPORAL_TLS_SERVER_NAME=localhost "$tcli" "$@"
}

# Waits up to 60 s for `check` to succeed while the service's process lives; says which log tells why not.
wait_until() {
  local what=$1 svc=$2; shift 2
  for _ in $(seq 1 300); do
    "$@" && return 0
    kill -0 "$(cat "$dir/$svc.pid")" 2>/dev/null || fail "the $svc service exited: $dir/$svc.log"
    sleep 0.2
  done
  fail "$what within 60 s: $dir/$svc.log"
}

metadata_written() {
  local psql
  psql=$(command -v psql || echo "$(pg_bin)/psql")
  [ "$("$psql" -h 127.0.0.1 -p "$PG_PORT" -U temporal -d temporal -tAc 'select count(*) from cluster_metadata_info' \
    2>/dev/null)" = 1 ]
}
wait_metadata() { wait_until "the history service wrote no cluster metadata" history metadata_written; }

frontend_answers() { cli operator cluster health >/dev/null 2>&1; }
wait_frontend() { wait_until "the frontend did not answer at localhost:$FRONTEND_PORT" frontend frontend_answers; }

ready_namespace() {
  for _ in $(seq 1 150); do
    cli operator namespace describe --namespace "$namespace" >/dev/null 2>&1 && break
    cli operator namespace create --namespace "$namespace" --retention 1d >/dev/null 2>&1 || sleep 0.2
  done
  local sa existing=
  # A new namespace reaches every service's cache within seconds; until then it is "not found".
  for _ in $(seq 1 150); do
    existing=$(cli operator search-attribute list --namespace "$namespace" 2>/dev/null) && break
    sleep 0.2
  done
  for sa in "${SEARCH_ATTRIBUTES[@]}"; do
    grep -qw "${sa%%=*}" <<<"$existing" && continue
    cli operator search-attribute create --namespace "$namespace" --name "${sa%%=*}" --type "${sa#*=}" >/dev/null ||
      fail "could not register search attribute ${sa%%=*}"
  done
}

case "$cmd" in
  start)
    build >/dev/null
    if [ -f "$dir/ports.env" ]; then
      load_ports
      pg_start
    else
      PG_PORT=$(free_port)
      pg_init
      tls_init
      write_config
    fi
    # The first service to start writes the cluster's metadata; two at once both try, and one exits.
    service_start history
    wait_metadata
    for svc in frontend matching worker; do service_start "$svc"; done
    wait_frontend
    ready_namespace
    say "Temporal Server $SERVER_VERSION (PostgreSQL, ${SERVICES[*]}) at localhost:$FRONTEND_PORT, TLS; logs in $dir"
    echo "localhost:$FRONTEND_PORT" ;;
  stop|destroy)
    for svc in "${SERVICES[@]}"; do service_stop "$svc"; done
    if [ -f "$dir/ports.env" ]; then
      load_ports
      pg_stop
      [ "$cmd" = destroy ] && rm -rf "$PG_DIR" "$dir"
    fi
    say "$([ "$cmd" = destroy ] && echo "stopped and removed" || echo stopped) the cluster in $dir" ;;
  restart)
    load_ports
    case "$target" in
      postgres) pg_stop; pg_start ;;
      frontend|history|matching|worker)
        service_stop "$target"; service_start "$target"
        [ "$target" = frontend ] && wait_frontend ;;
      *) fail "restart what? frontend, history, matching, worker or postgres, not '$target'" ;;
    esac
    say "restarted $target" ;;
  env)
    load_ports
    client_env ;;
esac
