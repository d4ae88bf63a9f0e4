#!/usr/bin/env bash
# with-docker.sh CMD [ARGS...] runs CMD with DOCKER_HOST pointing at a Docker
# engine: the one that already answers, else a private one started by
# hack/docker-engine.sh and stopped again (by PID) when CMD ends, fails or is
# interrupted. CMD's exit status is kept.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"

if DOCKER_HOST="$("$HERE/docker-engine.sh" env 2>/dev/null)"; then
  export DOCKER_HOST
  exec "$@"
fi
DOCKER_HOST="$("$HERE/docker-engine.sh" start)"
export DOCKER_HOST
trap '"$HERE/docker-engine.sh" stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"$@"
