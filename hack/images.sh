#!/usr/bin/env bash
# images.sh builds steadystate's FROM scratch images (refctl) with a Docker
# engine, starting a private one for the build if none answers and stopping
# it afterwards, then runs each image once to show the binary works there.
#   IMAGE_TAG   tag to build (default dev)
set -euo pipefail
cd "$(dirname "$0")/.."
TAG="${IMAGE_TAG:-dev}"
OUT="_images"

log() { printf 'images: %s\n' "$*" >&2; }

mkdir -p "$OUT/refctl"
log "building a static refctl"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT/refctl/refctl" ./cmd/refctl

started=0
if ! DOCKER_HOST="$(hack/docker-engine.sh env 2>/dev/null)"; then
  DOCKER_HOST="$(hack/docker-engine.sh start)"
  started=1
fi
export DOCKER_HOST
trap '[[ $started == 1 ]] && hack/docker-engine.sh stop' EXIT

image="steadystate/refctl:$TAG"
log "docker build $image"
docker build -q -t "$image" -f hack/images/refctl.Dockerfile "$OUT/refctl" >/dev/null
# A bad --bug must be refused with the list of valid ones: proves the
# binary starts inside the empty image.
if out="$(docker run --rm "$image" workload --bug=nope 2>&1)"; then
  log "error: $image accepted an unknown --bug"; exit 1
fi
grep -q "valid: expectations-never-expire, no-expectations" <<<"$out" || { log "error: $image did not run: $out"; exit 1; }
size="$(docker image inspect -f '{{.Size}}' "$image")"
log "built $image ($((size / 1024 / 1024)) MiB) and ran it"
