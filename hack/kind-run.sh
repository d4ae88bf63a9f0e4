#!/usr/bin/env bash
# kind-run.sh CMD [ARGS...] makes sure the kind node image exists (pulled, or
# built from source by hack/kind-image.sh) and the subjects' images are built
# (hack/images.sh: refctl and the in-pod fault proxy, which the suites load
# into the cluster), then runs CMD with KIND_NODE_IMAGE set. Run it under
# hack/with-docker.sh.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
KIND_NODE_IMAGE="$("$HERE/kind-image.sh" | tail -n1)"
export KIND_NODE_IMAGE
"$HERE/images.sh"
exec "$@"
