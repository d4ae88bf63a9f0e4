#!/usr/bin/env bash
# kube-bins.sh builds etcd, kube-apiserver, kube-controller-manager and
# kube-scheduler from source for one Kubernetes version, and KWOK's kwok
# controller (the local cluster's simulated nodes) at a pinned version, into a
# per-version cache folder, and prints that folder on its last line.
# Already-built binaries are not rebuilt.
#
# Environment:
#   KUBE_VERSION          Kubernetes version to build (default v1.36.3)
#   KWOK_VERSION          sigs.k8s.io/kwok version of the kwok binary (default
#                         v0.8.0); the folder's kwok-version file records it
#   KUBE_EXTRA_BINS       more k8s.io/kubernetes commands to build into the same
#                         folder (the kind node image needs kubeadm kubelet kubectl
#                         kube-proxy)
#   STEADYSTATE_CACHE_DIR cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/steadystate)
#
# k8s.io/kubernetes cannot be built with `go install pkg@version` because its
# go.mod replaces every staging module with a relative path. A throwaway
# wrapper module requires it and replaces each staging module with its
# published v0.Y.Z instead. etcd's server module has relative replaces too and
# gets the same treatment, at the version kubeadm pins for this release.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
CACHE_ROOT="${STEADYSTATE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/steadystate}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
read -r -a EXTRA_BINS <<<"${KUBE_EXTRA_BINS:-}"
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
for b in "${EXTRA_BINS[@]}"; do [[ " ${BINARIES[*]} " == *" $b "* ]] || BINARIES+=("$b"); done

log() { printf 'kube-bins: %s\n' "$*" >&2; }
die() { printf 'kube-bins: error: %s\n' "$*" >&2; exit 1; }

if [[ ! "$KWOK_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  die "KWOK_VERSION=$KWOK_VERSION is not a KWOK release version; use the form vX.Y.Z, for example KWOK_VERSION=v0.8.0"
fi
if [[ ! "$KUBE_VERSION" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  die "KUBE_VERSION=$KUBE_VERSION is not a Kubernetes release version; use the form v1.Y.Z, for example KUBE_VERSION=v1.36.3"
fi
MINOR="${BASH_REMATCH[1]}"
PATCH="${BASH_REMATCH[2]}"
STAGING_VERSION="v0.${MINOR}.${PATCH}"

BIN_DIR="$CACHE_ROOT/kube/$KUBE_VERSION/bin"
MISSING=()
for b in "${BINARIES[@]}"; do [[ -x "$BIN_DIR/$b" ]] || MISSING+=("$b"); done
# A kwok of another version than the pinned one is rebuilt.
if [[ -x "$BIN_DIR/kwok" && "$(cat "$BIN_DIR/../kwok-version" 2>/dev/null)" != "$KWOK_VERSION" ]]; then
  MISSING+=(kwok)
fi
if (( ${#MISSING[@]} == 0 )); then
  log "binaries for $KUBE_VERSION already built in $BIN_DIR"
  echo "$BIN_DIR"
  exit 0
fi
KUBE_CMDS=()
for b in "${MISSING[@]}"; do [[ "$b" == etcd || "$b" == kwok ]] || KUBE_CMDS+=("k8s.io/kubernetes/cmd/$b"); done

command -v go >/dev/null || die "go is not on PATH; install Go (https://go.dev/doc/install) or add /usr/local/go/bin to PATH"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/steadystate-kube-bins.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# download MODULE@VERSION: fetch a module through the configured proxy and print
# its directory, or exit with a message that tells a wrong version from an
# unreachable proxy.
download() {
  local out dir err
  out="$(go mod download -json "$1" 2>&1 || true)"
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$out")"
  if [[ -n "$dir" && -d "$dir" ]]; then echo "$dir"; return; fi
  err="$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' <<<"$out")"
  [[ -n "$err" ]] || err="$out"
  case "$err" in
    *"unknown revision"*|*"invalid version"*|*"not found"*|*"not available"*|*"404"*|*"410 Gone"*)
      die "module $1 does not exist ($err); check KUBE_VERSION (it must be a released Kubernetes version such as v1.36.3)" ;;
    *)
      die "cannot download module $1 ($err); check that the Go module proxy (GOPROXY=$(go env GOPROXY)) is reachable, or point KUBE_BIN_DIR at binaries you already have" ;;
  esac
}

start=$(date +%s)
log "building ${MISSING[*]} (Kubernetes $KUBE_VERSION, kwok $KWOK_VERSION) from source into $BIN_DIR"
log "this takes about 5-8 minutes on 2 cores for the first three, about 1 more for kube-scheduler, 2-3 for kwok, 3-5 more for the node image's; later runs reuse the cache"

log "[1/5] downloading k8s.io/kubernetes@$KUBE_VERSION"
KDIR="$(cd "$WORK" && download "k8s.io/kubernetes@$KUBE_VERSION")"
ETCD_VERSION="$(sed -n 's/^[[:space:]]*DefaultEtcdVersion[[:space:]]*=[[:space:]]*"\([0-9.]*\)-[0-9]*"/\1/p' "$KDIR/cmd/kubeadm/app/constants/constants.go" | head -n1)"
[[ -n "$ETCD_VERSION" ]] || die "cannot find kubeadm's pinned etcd version in $KDIR/cmd/kubeadm/app/constants/constants.go"
GO_DIRECTIVE="$(sed -n 's/^go \(.*\)$/\1/p' "$KDIR/go.mod" | head -n1)"

mkdir -p "$WORK/kube" "$WORK/etcd" "$WORK/out"
{
  echo "module steadystate.local/kubebins"
  echo
  echo "go $GO_DIRECTIVE"
  echo
  echo "require k8s.io/kubernetes $KUBE_VERSION"
  echo
  echo "replace ("
  sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => \./staging/.*$#\t\1 => \1 '"$STAGING_VERSION"'#p' "$KDIR/go.mod"
  echo ")"
} >"$WORK/kube/go.mod"
{
  echo "module steadystate.local/etcdbin"
  echo
  echo "go $GO_DIRECTIVE"
  echo
  echo "require go.etcd.io/etcd/server/v3 v$ETCD_VERSION"
} >"$WORK/etcd/go.mod"

VERSION_PKGS=(k8s.io/component-base/version k8s.io/client-go/pkg/version)
LDFLAGS="-s -w"
for p in "${VERSION_PKGS[@]}"; do
  LDFLAGS+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean"
  LDFLAGS+=" -X $p.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
done

# No DWARF from the compiler either (-dwarf=false; the linker's -w drops
# it anyway): a cold compile took about 15% less time without it
# (docs/figures.md).
NODWARF="-gcflags=all=-dwarf=false"
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=mod"
log "[2/5] resolving modules"
(cd "$WORK/kube" && go mod download k8s.io/kubernetes >/dev/null 2>&1 || true)
if (( ${#KUBE_CMDS[@]} > 0 )); then
  t=$(date +%s)
  log "[3/5] compiling ${KUBE_CMDS[*]##*/} (the slow step)"
  (cd "$WORK/kube" && go build -trimpath "$NODWARF" -ldflags "$LDFLAGS" -o "$WORK/out/" "${KUBE_CMDS[@]}") \
    || die "building Kubernetes $KUBE_VERSION failed (see the compiler output above)"
  log "compiled ${KUBE_CMDS[*]##*/} in $(( $(date +%s) - t ))s"
fi
if [[ " ${MISSING[*]} " == *" etcd "* ]]; then
  t=$(date +%s)
  log "[4/5] compiling etcd v$ETCD_VERSION"
  (cd "$WORK/etcd" && go build -trimpath "$NODWARF" -ldflags "-s -w" -o "$WORK/out/etcd" go.etcd.io/etcd/server/v3) \
    || die "building etcd v$ETCD_VERSION failed (see the compiler output above)"
  log "compiled etcd in $(( $(date +%s) - t ))s"
fi
# kwok's module has no replace directives: `go install pkg@version` builds
# it as released, with the dependencies its go.mod pins.
if [[ " ${MISSING[*]} " == *" kwok "* ]]; then
  t=$(date +%s)
  log "[5/5] compiling kwok $KWOK_VERSION (sigs.k8s.io/kwok/cmd/kwok)"
  (cd "$WORK" && GOFLAGS= GOBIN="$WORK/out" go install -trimpath "$NODWARF" -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION") \
    || die "building sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION failed (see the compiler output above); check KWOK_VERSION and that the Go module proxy (GOPROXY=$(go env GOPROXY)) is reachable"
  log "compiled kwok in $(( $(date +%s) - t ))s"
fi

mkdir -p "$BIN_DIR"
for b in "${MISSING[@]}"; do mv -f "$WORK/out/$b" "$BIN_DIR/$b"; done
echo "$ETCD_VERSION" >"$BIN_DIR/../etcd-version"
echo "$KWOK_VERSION" >"$BIN_DIR/../kwok-version"
log "built in $(( $(date +%s) - start ))s"
echo "$BIN_DIR"
