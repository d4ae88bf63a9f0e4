#!/usr/bin/env bash
# workflow-test.sh runs the vendor workflow (.github/workflows/conformance.yaml)
# as a vendor's repository calls it, with act (nektos/act, built from the Go
# module proxy) in its self-hosted mode: the steps run on this machine, no
# container. The real actions it uses (actions/checkout, actions/setup-go,
# actions/upload-artifact) come from the Go module proxy too, each pinned by
# version and checksum. With no route to GitHub, git fetches the two
# repositories the workflow checks out from local copies (git's insteadOf,
# set for this run only): a vendor repository made here, holding the subject
# file and a workflow that calls steadystate's, and the committed tree of
# this checkout as steadystate's main branch.
#
# The workflow conforms SUBJECT (default: a zoo subject, Kubernetes' own
# EndpointSlice controller, on the local provider with simulated nodes;
# CAPABILITIES=a,b, the workflow's capabilities input, runs only those
# capabilities' suites), uploads the bundle to act's artifact server, and
# prints the manifest digest where it writes the job summary. Then this
# script takes the uploaded bundle and checks it with `steadystate verify
# --digest` against the digest the workflow printed: verify must end on the
# result the workflow's conform step ended on.
#
# Environment: SUBJECT, CAPABILITIES (every bound one), PROVIDER (local),
# LOCAL_NODES (on), KUBE_VERSION (the workflow's kube input: on local, the
# control plane built from source; make sets it), ARTIFACTS.
#
# workflow-test.sh --build-act only builds act into bin/ (CI builds it
# ahead, beside other steps).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
ACT_VERSION=v0.2.89
log() { printf 'workflow-test: %s\n' "$*" >&2; }

# build_act: act at ACT_VERSION in bin/, built from the Go module proxy
# unless it is there already.
build_act() {
  if ! "$ROOT/bin/act" --version 2>/dev/null | grep -qx "act version ${ACT_VERSION#v}"; then
    log "building act $ACT_VERSION from the Go module proxy into bin/ (about 3 minutes on 2 cores, once)"
    GOBIN="$ROOT/bin" go install "github.com/nektos/act@$ACT_VERSION"
  fi
}
if [[ "${1:-}" == --build-act ]]; then
  build_act
  exit 0
fi
SUBJECT="${SUBJECT:-fixtures/zoo/endpointslice.yaml}"
CAPABILITIES="${CAPABILITIES:-}"
PROVIDER="${PROVIDER:-local}"
LOCAL_NODES="${LOCAL_NODES-on}"
ARTIFACTS="${ARTIFACTS:-$PWD/_artifacts}"
KUBE_VERSION="${KUBE_VERSION:?is not set: run make workflow-test, which sets it}"
OUT="$ARTIFACTS/workflow-test"

# The actions the workflow names, as the Go module proxy serves their
# repositories (+incompatible: they have no go.mod), with the checksum of
# each module zip. setup-go's version is unknown to the checksum database,
# so the pinned sum is the only check; the others are checked by both.
ACTIONS=(
  "actions/checkout v4 v4.2.2 h1:IgYF9OCbMU45evIES1ubO1WHRGBvLG/iHVBjNor+i1s="
  "actions/setup-go v5 v5.5.0 h1:mzXhPA5btGncYGojjTU5g+NXfmraLXKgHpJmXyptBZk="
  "actions/upload-artifact v4 v4.6.2 h1:2NF9mIcRsbJ4fvqpb2p1KqqNakuDuc9gx+oWKrGYESM="
)

[[ -f "$SUBJECT" ]] || { log "error: SUBJECT=$SUBJECT is not a file"; exit 1; }
command -v node >/dev/null || { log "error: the actions run on node, which is not on PATH (apt-get install nodejs)"; exit 1; }
log "the actions run on node $(node --version) (they name node20)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/steadystate-workflow-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

build_act

local_repos=()
for a in "${ACTIONS[@]}"; do
  read -r repo ref version sum <<<"$a"
  json="$(GONOSUMDB=github.com/actions/setup-go go mod download -json "github.com/$repo@$version+incompatible")" ||
    { log "error: the Go module proxy did not serve github.com/$repo@$version: $json"; exit 1; }
  got="$(sed -n 's/^\t"Sum": "\(.*\)",$/\1/p' <<<"$json")"
  dir="$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$json")"
  [[ "$got" == "$sum" ]] || { log "error: github.com/$repo@$version has checksum $got, pinned $sum"; exit 1; }
  local_repos+=(--local-repository "$repo@$ref=$dir")
done

# steadystate's main branch: the committed tree, as a tag would publish it
# (a shallow clone's too).
if [[ -n "$(git status --porcelain -- .github)" ]]; then
  log "warning: .github has uncommitted changes; the workflow run is the committed one"
fi
git archive HEAD | (mkdir -p "$WORK/steadystate" && tar -x -C "$WORK/steadystate")
git init -q --bare "$WORK/steadystate.git"
git -C "$WORK/steadystate.git" config receive.shallowUpdate true
git push -q "$WORK/steadystate.git" HEAD:refs/heads/main

# The vendor's repository: the subject file and the workflow that calls
# steadystate's.
V="$WORK/vendor"
mkdir -p "$V/.github/workflows"
cp "$SUBJECT" "$V/subject.yaml"
gover="$(go env GOVERSION)"
gover="${gover#go}"
cat >"$V/.github/workflows/conformance.yaml" <<EOF
name: conformance
on: push
jobs:
  steadystate:
    uses: steadystate-dev/steadystate/.github/workflows/conformance.yaml@main
    with:
      subject-file: subject.yaml
      capabilities: "$CAPABILITIES"
      provider: $PROVIDER
      local-nodes: "$LOCAL_NODES"
      go-version: "$gover"
      kube: $KUBE_VERSION
  digest:
    needs: steadystate
    if: always()
    runs-on: ubuntu-24.04
    steps:
      - run: |
          echo "vendor: the digest output is sha256:\$DIGEST"
        env:
          DIGEST: \${{ needs.steadystate.outputs.digest }}
EOF
git -C "$V" init -q -b main
git -C "$V" add -A
git -C "$V" -c user.name=vendor -c user.email=vendor@example.invalid commit -q -m "the subject and its conformance workflow"
git -C "$V" remote add origin https://github.com/steadystate-dev/vendor-example

# setup-go finds this machine's Go in the runner's tool cache (act's, below
# its action cache), as on a self-hosted runner that holds it, and
# downloads nothing.
TOOLS="$WORK/act/tool_cache"
arch="$(go env GOARCH)"
[[ "$arch" != amd64 ]] || arch=x64
mkdir -p "$TOOLS/go/$gover"
ln -s "$(go env GOROOT)" "$TOOLS/go/$gover/$arch"
touch "$TOOLS/go/$gover/$arch.complete"

# git (the checkout action runs it) reaches the two repositories here.
export GIT_CONFIG_COUNT=2
export GIT_CONFIG_KEY_0="url.file://$WORK/steadystate.git.insteadOf" GIT_CONFIG_VALUE_0=https://github.com/steadystate-dev/steadystate
export GIT_CONFIG_KEY_1="url.file://$V.insteadOf" GIT_CONFIG_VALUE_1=https://github.com/steadystate-dev/vendor-example

# act's artifact server on a free port of the loopback. No cache server:
# setup-go would save this machine's module and build caches (gigabytes)
# into it; it says the runner has no cache service and goes on.
port=34567
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done

log "running the vendor workflow with act: $SUBJECT${CAPABILITIES:+ (capabilities $CAPABILITIES)} on $PROVIDER (LOCAL_NODES=$LOCAL_NODES); the log is $OUT/act.log"
# The steps see this process's environment: not make's own variables nor
# those the Makefile exports, so the workflow's make starts afresh. act
# runs each step in a session of its own, where a Ctrl-C does not reach,
# and leaves a running step running when it is cancelled: a signal here
# stops the steps' process groups itself (SIGTERM) and waits (90 s at most,
# then kills) for their own clean-up (the suites stop their clusters), and
# only then cancels act: act gone closes the steps' terminal, whose hangup
# would end a step in the middle of its clean-up.
stop() {
  log "stopping act and the workflow's steps"
  local groups=() p i
  # The steps are act's children, each leading its own group; what they
  # started in groups of their own (a suite, its cluster) is theirs to stop.
  for p in $(ps -o pid= --ppid "$act" 2>/dev/null); do
    [[ "$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')" != "$p" ]] || groups+=("$p")
  done
  for p in "${groups[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
  for p in "${groups[@]}"; do
    for ((i = 0; i < 180; i++)); do
      kill -0 -- "-$p" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL -- "-$p" 2>/dev/null || true
  done
  kill -TERM "$act" 2>/dev/null || true
  wait "$act" || true
  exit 130
}
(cd "$V" && exec env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u KUBE_VERSION -u PROVIDER -u ARTIFACTS \
  -u KIND_CONFIG -u SUBJECT_FILE -u UPSTREAM_DIR -u CAPABILITIES \
  "$ROOT/bin/act" push -W .github/workflows/conformance.yaml \
  -P ubuntu-24.04=-self-hosted --no-skip-checkout \
  "${local_repos[@]}" --local-repository "steadystate-dev/steadystate@main=$WORK/steadystate" \
  --artifact-server-path "$WORK/artifacts" --artifact-server-addr 127.0.0.1 --artifact-server-port "$port" \
  --action-cache-path "$WORK/act" --no-cache-server -s GITHUB_TOKEN=offline) >"$OUT/act.log" 2>&1 &
act=$!
trap stop INT TERM
tail -n +1 --pid="$act" -f "$OUT/act.log" &
status=0
wait "$act" || status=$?
trap - INT TERM
wait
# Whatever follows fails or not, the uploads are kept next to the log.
cp -r "$WORK/artifacts" "$OUT/uploaded" 2>/dev/null || true

# What the workflow printed in its log (a step's output, after act's "| "),
# wrote into the job summary (which act prints after "Summary -", its lines
# bare) and gave as its output digest (the calling workflow's second job
# prints it), and the bundle it uploaded (act's artifact server keeps each
# v4 artifact as a zip of its files).
pattern='steadystate: manifest digest sha256:\([0-9a-f]\{64\}\)$'
digest="$(sed -n "s/.*| $pattern/\1/p" "$OUT/act.log" | sed -n 1p)"
summary="$(sed -n "s/^$pattern/\1/p" "$OUT/act.log" | sed -n 1p)"
output="$(sed -n 's/.*| vendor: the digest output is sha256:\([0-9a-f]\{64\}\)$/\1/p' "$OUT/act.log" | sed -n 1p)"
result="$(sed -n 's/.*| steadystate: result \(.*\)$/\1/p' "$OUT/act.log" | sed -n 1p)"
[[ -n "$digest" ]] || { log "error: the workflow (act exit $status) printed no manifest digest; see $OUT/act.log"; exit 3; }
[[ "$summary" == "$digest" ]] || { log "error: the job summary names digest '$summary', the log $digest; see $OUT/act.log"; exit 3; }
[[ "$output" == "$digest" ]] || { log "error: the workflow's output digest is '$output', the log's $digest; see $OUT/act.log"; exit 3; }
[[ -n "$result" ]] || { log "error: the workflow (act exit $status) printed no result; see $OUT/act.log"; exit 3; }
zips=("$WORK"/artifacts/*/steadystate-conformance/steadystate-conformance.zip)
[[ -f "${zips[0]}" ]] || { log "error: the workflow (act exit $status) uploaded no artifact steadystate-conformance; see $OUT/act.log"; exit 3; }
unzip -q -o "${zips[0]}" -d "$OUT"
[[ -f "$OUT/conformance.tar.gz" ]] || { log "error: the artifact steadystate-conformance holds no conformance.tar.gz"; exit 3; }
# The capabilities input reached conform: the bundle's manifest lists the
# capabilities run (none: every bound one), one per line of its array.
ran="$(tar -xzOf "$OUT/conformance.tar.gz" manifest.json | awk '/^  "capabilities": \[/ { on = 1; next } on && /^  \]/ { on = 0 } on { gsub(/[ ",]/, ""); printf "%s%s", sep, $0; sep = "," }')"
[[ "$ran" == "${CAPABILITIES// /}" ]] || { log "error: the workflow was given capabilities '$CAPABILITIES', its bundle says it ran '${ran:-every bound one}'"; exit 3; }

# verify, given the printed digest, must find the uploaded bundle intact and
# re-judge it to the result the workflow's conform step ended on; act's own
# exit says only whether the job failed, which it must when conform did not
# pass.
verified=0
go run ./cmd/steadystate verify --digest "$digest" "$OUT/conformance.tar.gz" | tee "$OUT/verify.log" || verified=$?
again="$(sed -n 's/^verify: \(PASSED WITH GAPS\|NOT PASSED\|PASSED\|ERROR\)\( — .*\)\{0,1\}$/\1/p' "$OUT/verify.log" | tail -n 1)"
if ((verified == 3)) || [[ "$again" != "$result" ]]; then
  log "error: the workflow's conform ended $result, verify of its bundle ${again:-with no result} (exit $verified): they must agree"
  exit 3
fi
case "$result" in
  PASSED | "PASSED WITH GAPS") failed=0 ;;
  *) failed=1 ;;
esac
if (((status != 0) != failed)); then
  log "error: the workflow's conform ended $result and act exited $status: a job must fail when the subject did not pass"
  exit 3
fi
log "the workflow's conform ended $result; its uploaded bundle verifies against the digest it printed, in its job summary and as its output, with the same result: $OUT/conformance.tar.gz"
exit "$status"
