#!/usr/bin/env bash
# install-test.sh tries steadystate as a user who never cloned it would:
# `go install github.com/steadystate-dev/steadystate/cmd/steadystate@VERSION`
# in an empty folder, then `steadystate conform --subject FILE --provider
# local` there and `steadystate verify` on the bundle. The committed tree is
# published as a pseudo-version in a file-system module proxy in front of
# the real one (hack/tools/modproxy), so the install resolves exactly as it
# will once the version is on the module proxy.
#
# Environment: SUBJECT (default fixtures/upstream/controller-runtime-v0.17.3.yaml,
# which needs make upstream-bins), KUBE_VERSION (the local control plane,
# built from source by steadystate on first use), ARTIFACTS.
set -euo pipefail
cd "$(dirname "$0")/.."
MODULE=github.com/steadystate-dev/steadystate
SUBJECT="${SUBJECT:-fixtures/upstream/controller-runtime-v0.17.3.yaml}"
ARTIFACTS="${ARTIFACTS:-$PWD/_artifacts}"
log() { printf 'install-test: %s\n' "$*" >&2; }

[[ -f "$SUBJECT" ]] || { log "error: SUBJECT=$SUBJECT is not a file"; exit 1; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/steadystate-install-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src" "$WORK/user" "$WORK/bin" "$ARTIFACTS"

# The committed tree, not the working copy: what a tag would publish.
git archive HEAD | tar -x -C "$WORK/src"
VERSION="v0.0.0-$(TZ=UTC git log -1 --date=format-local:%Y%m%d%H%M%S --format=%cd)-$(git rev-parse --short=12 HEAD)"
(cd hack/tools && go run ./modproxy -dir "$WORK/src" -module "$MODULE" -version "$VERSION" -out "$WORK/proxy")
log "published $MODULE@$VERSION in a file-system proxy"

cp "$SUBJECT" "$WORK/user/subject.yaml"
cd "$WORK/user"
start=$(date +%s)
# Only this module is unknown to the checksum database; the rest is checked.
GOPROXY="file://$WORK/proxy,$(go env GOPROXY)" GONOSUMDB="$MODULE" GOBIN="$WORK/bin" \
  go install "$MODULE/cmd/steadystate@$VERSION"
log "go install took $(( $(date +%s) - start ))s; running from $PWD, which holds only subject.yaml"
export PATH="$WORK/bin:$PATH"

# conform's exit code is its result's (docs/conformance.md, "Exit codes");
# verify, given the digest conform printed, must end on the same code.
status=0
steadystate conform --subject subject.yaml --provider local --out "$ARTIFACTS/install-test.tar.gz" | tee "$WORK/conform.out" || status=$?
[[ -f "$ARTIFACTS/install-test.tar.gz" ]] || { log "error: conform (exit $status) wrote no bundle"; exit 3; }
digest="$(sed -n 's/.*manifest digest sha256:\([0-9a-f]\{64\}\).*/\1/p' "$WORK/conform.out" | head -n 1)"
[[ -n "$digest" ]] || { log "error: conform (exit $status) printed no manifest digest"; exit 3; }
verified=0
steadystate verify --digest "$digest" "$ARTIFACTS/install-test.tar.gz" || verified=$?
if ((verified != status)); then
  log "error: conform exited $status and verify of its bundle $verified: they must agree"
  exit 3
fi
log "conform exited $status; the bundle verifies against its digest with the same result: $ARTIFACTS/install-test.tar.gz"
exit "$status"
