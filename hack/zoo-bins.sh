#!/usr/bin/env bash
# zoo-bins.sh builds the zoo's operators (fixtures/zoo/operators) from the Go
# module proxy at pinned versions into the upstream folder, one folder per
# release (<name>@<version>), next to the upstream releases the subject files
# already read as {{.UpstreamDir}}. Each folder holds the manager binary,
# the CRDs copied from the operator's own module, and a release.json stamp
# (module, version, binary, sha256) written once the build is complete; a
# release whose stamp names its module and version is not built again.
#
# A release is built as `make upstream-bins` builds one: the module is
# downloaded with `go mod download -json`, copied to a writable folder (so
# that its own go.mod, replace directives included, applies; `go install
# mod@version` refuses those), and its manager is built there with
# GOFLAGS=-mod=mod, statically (CGO_ENABLED=0), with the local toolchain.
# A replace onto a folder the module's download leaves out (a nested module)
# is pointed at that module's published version instead.
#
# A release that fails (a version the proxy refuses, a build error) is named
# with its module and version; the others are still built, and the script
# exits non-zero at the end.
#
# Usage: hack/zoo-bins.sh [NAME...]   (default: every release below)
# Environment:
#   UPSTREAM_DIR          where the releases go (default <cache>/upstream)
#   STEADYSTATE_CACHE_DIR cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/steadystate)
set -uo pipefail

CACHE_ROOT="${STEADYSTATE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/steadystate}"
DIR="${UPSTREAM_DIR:-$CACHE_ROOT/upstream}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# One release a line, fields separated by |:
#   name | module | version | main package | binary | copies | replaces | wrapper
# copies: space-separated FROM:TO, FROM a folder of the module, or
#   MODULE@VERSION//FOLDER for a folder of another module of the same project
#   (downloaded from the proxy too);
# replaces: space-separated `go mod edit -replace` arguments;
# wrapper: a folder of this repository holding a main module that imports
#   the operator's packages, built with MODULE required at VERSION (for an
#   operator whose own main package is a module the proxy does not serve).
RELEASES=(
  "kuberay@v1.5.0|github.com/ray-project/kuberay/ray-operator|v1.5.0|.|ray-operator|config/crd/bases:crds config/samples:samples||"
  "metallb@v0.15.2|go.universe.tf/metallb|v0.15.2|./controller|metallb-controller|config/crd/bases:crds||"
  "keda@v2.18.1|github.com/kedacore/keda/v2|v2.18.1|./cmd/operator|keda-operator|config/crd/bases:crds config/samples:samples||"
  "external-secrets@v0.16.2|github.com/external-secrets/external-secrets|v0.16.2|.|external-secrets|config/crds/bases:crds||"
  "cert-manager@v1.21.2|github.com/cert-manager/cert-manager|v1.21.2|.|cert-manager-controller|deploy/crds:crds||fixtures/zoo/operators/certmanager"
  "prometheus-operator@v0.93.0|github.com/prometheus-operator/prometheus-operator|v0.93.0|./cmd/operator|prometheus-operator|example/prometheus-operator-crd:crds|github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring=github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring@v0.93.0 github.com/prometheus-operator/prometheus-operator/pkg/client=github.com/prometheus-operator/prometheus-operator/pkg/client@v0.93.0|"
  "kueue@v0.19.2|sigs.k8s.io/kueue|v0.19.2|./cmd/kueue|kueue-manager|config/components/crd/bases:crds||"
  "jobset@v0.12.0|sigs.k8s.io/jobset|v0.12.0|.|jobset-manager|config/components/crd/bases:crds||"
)

export GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false"
command -v go >/dev/null || { echo "zoo-bins: go is not on PATH; add /usr/local/go/bin to PATH" >&2; exit 2; }

selected=("${RELEASES[@]}")
if (( $# > 0 )); then
  selected=()
  for want in "$@"; do
    found=
    for r in "${RELEASES[@]}"; do [[ "${r%%|*}" == "$want" ]] && { selected+=("$r"); found=1; }; done
    if [[ -z "$found" ]]; then
      names=(); for r in "${RELEASES[@]}"; do names+=("${r%%|*}"); done
      echo "zoo-bins: \"$want\" is not a zoo release; known: ${names[*]}" >&2
      exit 2
    fi
  done
fi

mkdir -p "$DIR" || exit 2
n=${#selected[@]}
start_all=$SECONDS
failed=()

# say prints one numbered progress line with the time since the release began.
say() { printf '[%d/%d] %s: %s (%ds)\n' "$i" "$n" "$name" "$*" "$((SECONDS - t0))" >&2; }

# download prints the folder of MODULE@VERSION, downloaded through the
# configured proxy; a refusal names the module, the version and what to do.
download() {
  local mv=$1 out dir err
  out=$(cd "$DIR" && go mod download -json "$mv" 2>&1)
  dir=$(jq -r '.Dir // empty' <<<"$out" 2>/dev/null)
  if [[ -n "$dir" && -d "$dir" ]]; then echo "$dir"; return 0; fi
  err=$(jq -r '.Error // empty' <<<"$out" 2>/dev/null)
  [[ -n "$err" ]] || err=$(tail -n 3 <<<"$out")
  err=$(tr -s '\n\t' '  ' <<<"$err")
  say "the Go module proxy did not serve $mv: $err" \
    "(what to do: set GOPROXY to a proxy that serves this version, GOPROXY=$(go env GOPROXY) now, or pin another version in hack/zoo-bins.sh)"
  return 1
}

# gorun runs go in a folder, niced (the machine is shared), keeping its
# output in a log and printing the log's tail when it fails.
# A long step says every 30s that it is still running.
gorun() {
  local dir=$1; shift
  (cd "$dir" && exec nice -n 10 go "$@") >"$work/go.log" 2>&1 &
  gopid=$!
  local n=0
  while kill -0 "$gopid" 2>/dev/null; do
    sleep 1; n=$((n + 1))
    (( n % 30 == 0 )) && say "go $1 still running"
  done
  if ! wait "$gopid"; then
    gopid=
    say "go $* failed:"; tail -n 30 "$work/go.log" >&2
    return 1
  fi
  gopid=
}

build() {
  local mod=$1 ver=$2 pkg=$3 bin=$4 copies=$5 replaces=$6 wrapper=$7
  local src="$work/src" out="$work/out" moddir c from to rep
  say "downloading $mod@$ver"
  moddir=$(download "$mod@$ver") || return 1
  if [[ -n "$wrapper" ]]; then
    say "copying the wrapper module $wrapper, requiring $mod@$ver"
    cp -r "$REPO_ROOT/$wrapper" "$src" && chmod -R u+w "$src" || return 1
    gorun "$src" mod edit "-require=$mod@$ver" || return 1
    gorun "$src" mod tidy || return 1
  else
    say "copying the module to a writable folder"
    cp -r "$moddir" "$src" && chmod -R u+w "$src" || return 1
  fi
  for rep in $replaces; do gorun "$src" mod edit "-replace=$rep" || return 1; done
  say "go build $pkg (minutes when cold)"
  gorun "$src" build -trimpath -o "$out/$bin" "$pkg" || return 1
  for c in $copies; do
    from=${c%%:*} to=${c#*:}
    if [[ "$from" == *//* ]]; then
      local other; other=$(download "${from%%//*}") || return 1
      from="$other/${from#*//}"
    else
      from="$moddir/$from"
    fi
    [[ -d "$from" ]] || { say "the module has no folder ${c%%:*}"; return 1; }
    mkdir -p "$out/$to" && cp -r "$from/." "$out/$to/" && chmod -R u+w "$out/$to" || return 1
  done
  jq -n --arg m "$mod" --arg v "$ver" --arg w "$wrapper" --arg b "$bin" \
    --arg s "$(sha256sum "$out/$bin" | cut -d' ' -f1)" --arg t "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    '{module:$m, version:$v, wrapper:(if $w == "" then null else $w end), binary:$b, sha256:$s, static:true, built:$t} | del(..|nulls)' \
    >"$out/release.json" || return 1
  rm -rf "${DIR:?}/$name" && mv "$out" "$DIR/$name"
}

# An interrupted build stops its go command and leaves no half-built folder.
work= gopid=
trap '[[ -n "$gopid" ]] && kill "$gopid" 2>/dev/null; [[ -n "$work" ]] && { chmod -R u+w "$work"; rm -rf "$work"; } 2>/dev/null; exit 130' INT TERM

i=0
for r in "${selected[@]}"; do
  i=$((i + 1)); t0=$SECONDS
  IFS='|' read -r name mod ver pkg bin copies replaces wrapper <<<"$r"
  stamp="$DIR/$name/release.json"
  if [[ -f "$stamp" && "$(jq -r '.module + "@" + .version' "$stamp" 2>/dev/null)" == "$mod@$ver" && -x "$DIR/$name/$bin" ]]; then
    say "built already ($DIR/$name, sha256 $(jq -r '.sha256[:12]' "$stamp"))"
    continue
  fi
  work=$(mktemp -d "$DIR/.build-$name-XXXXXX") || exit 2
  if build "$mod" "$ver" "$pkg" "$bin" "$copies" "$replaces" "$wrapper"; then
    say "built $DIR/$name/$bin"
  else
    say "FAILED: $mod@$ver not built"
    failed+=("$name ($mod@$ver)")
  fi
  chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"; work=
done

if (( ${#failed[@]} > 0 )); then
  echo "zoo-bins: ${#failed[@]} of $n release(s) not built: ${failed[*]} ($((SECONDS - start_all))s)" >&2
  exit 1
fi
echo "zoo-bins: $n release(s) in $DIR ($((SECONDS - start_all))s)" >&2
