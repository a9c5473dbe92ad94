#!/usr/bin/env bash
# SeaweedFS's `weed` binary, the S3-compatible server of the payload-store tests (test/s3-server.ts),
# built from its Go module (Apache-2.0; MinIO, the usual choice, is AGPL) and cached per user.
#
#   seaweedfs.sh bin     print the path of the cached binary, building it first if needed
#
# Settings (environment):
#   WEED_BIN            a weed binary to use instead (printed as is)
#   SEAWEEDFS_CACHE     cache folder (default ~/.cache/durable-agents)
#
# Building needs Go (1.24 or later) and the Go module proxy; it compiles a large tree: several minutes on
# 2 idle cores, much longer on a loaded machine. Later runs find the cached binary at once.
set -euo pipefail

MODULE=github.com/seaweedfs/seaweedfs
VERSION=v0.0.0-20261109003541-7506e5f91cd6
cache_root=${SEAWEEDFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/durable-agents}
cached=$cache_root/seaweedfs-$VERSION/weed

say() { echo "seaweedfs.sh: $*" >&2; }

works() { [ -x "$1" ] && "$1" version >/dev/null 2>&1; }

find_go() {
  if command -v go >/dev/null; then command -v go; return 0; fi
  if [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go; return 0; fi
  return 1
}

# Its go.mod has replace directives, so `go install module@version` refuses it: build inside the
# downloaded module instead.
build() {
  local go src tmp start
  go=$(find_go) || { say "go not found: install Go, or set WEED_BIN to a weed binary"; return 1; }
  start=$(date +%s)
  say "building $MODULE@$VERSION with $("$go" version) (takes several minutes)"
  src=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod "$go" mod download -json "$MODULE@$VERSION" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') || return 1
  tmp=$(mktemp -d)
  (cd "$src" && "$go" build -o "$tmp/weed" ./weed) >&2 || { rm -rf "$tmp"; return 1; }
  works "$tmp/weed" || { say "the built weed does not run"; rm -rf "$tmp"; return 1; }
  mkdir -p "$(dirname "$cached")"
  cp "$tmp/weed" "$cached.tmp.$$" && mv "$cached.tmp.$$" "$cached"
  rm -rf "$tmp"
  say "built and cached at $cached in $(($(date +%s) - start)) s"
}

case "${1:-bin}" in
  bin)
    if [ -n "${WEED_BIN:-}" ]; then echo "$WEED_BIN"; exit 0; fi
    if works "$cached"; then echo "$cached"; exit 0; fi
    # Two fresh clones may build at once; the lock keeps them from racing on the cache.
    mkdir -p "$cache_root"
    exec 9>"$cache_root/.seaweedfs.lock"
    flock 9
    works "$cached" || build
    echo "$cached"
    ;;
  *)
    echo "usage: seaweedfs.sh bin" >&2
    exit 2
    ;;
esac
