#!/usr/bin/env bash
# images.sh builds steadystate's FROM scratch images (refctl, faultproxy,
# steadystate) with a Docker engine, starting a private one for the build if
# none answers and stopping it afterwards, then runs each image once to show
# the binary works there.
#   IMAGE_TAG   tag to build (default dev)
set -euo pipefail
export DOCKER_BUILDKIT=0 # the legacy builder, explicitly: Debian's docker.io has no buildx
cd "$(dirname "$0")/.."
TAG="${IMAGE_TAG:-dev}"
OUT="_images"

log() { printf 'images: %s\n' "$*" >&2; }
# build ARGS: docker build, quiet unless it fails.
build() {
  local out
  out="$(docker build -q "$@" 2>&1)" || { printf '%s\n' "$out" >&2; return 1; }
}

for cmd in refctl faultproxy steadystate; do
  mkdir -p "$OUT/$cmd"
  log "building a static $cmd"
  # -buildvcs=auto: the commit goes into the build (steadystate's bundles
  # name it) where the checkout has one, whatever GOFLAGS says.
  CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags "-s -w" -o "$OUT/$cmd/$cmd" "./cmd/$cmd"
done

started=0
if ! DOCKER_HOST="$(hack/docker-engine.sh env 2>/dev/null)"; then
  DOCKER_HOST="$(hack/docker-engine.sh start)"
  started=1
fi
export DOCKER_HOST
trap '[[ $started == 1 ]] && hack/docker-engine.sh stop' EXIT

image="steadystate/refctl:$TAG"
log "docker build $image"
build -t "$image" -f hack/images/refctl.Dockerfile "$OUT/refctl"
# A bad --bug must be refused with the list of valid ones: proves the
# binary starts inside the empty image.
if out="$(docker run --rm "$image" workload --bug=nope 2>&1)"; then
  log "error: $image accepted an unknown --bug"; exit 1
fi
grep -q "valid: expectations-never-expire, no-expectations" <<<"$out" || { log "error: $image did not run: $out"; exit 1; }
size="$(docker image inspect -f '{{.Size}}' "$image")"
log "built $image ($((size / 1024 / 1024)) MiB) and ran it"

image="steadystate/faultproxy:$TAG"
log "docker build $image"
build -t "$image" -f hack/images/faultproxy.Dockerfile "$OUT/faultproxy"
# Outside a pod it must say it needs one.
out="$(docker run --rm -e POD_NAME=x "$image" 2>&1 || true)"
grep -q "the proxy reaches the API server with the pod's service account" <<<"$out" || { log "error: $image did not run: $out"; exit 1; }
size="$(docker image inspect -f '{{.Size}}' "$image")"
log "built $image ($((size / 1024 / 1024)) MiB) and ran it"

image="steadystate/steadystate:$TAG"
log "docker build $image"
build -t "$image" -f hack/images/steadystate.Dockerfile "$OUT/steadystate"
# It must start in the empty image and know its commands.
out="$(docker run --rm "$image" help 2>&1 || true)"
grep -q "steadystate conform --subject FILE" <<<"$out" || { log "error: $image did not run: $out"; exit 1; }
size="$(docker image inspect -f '{{.Size}}' "$image")"
log "built $image ($((size / 1024 / 1024)) MiB) and ran it"
