#!/usr/bin/env bash
# kind-run.sh CMD [ARGS...] makes sure the kind node image exists (pulled, or
# built from source by hack/kind-image.sh) and the subjects' images are built
# (hack/images.sh: refctl and the in-pod fault proxy, which the suites load
# into the cluster), then runs CMD with KIND_NODE_IMAGE set. Run it under
# hack/with-docker.sh.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"

# kind's known issue "too many open files": a node's kubelet, containerd and
# kube-proxy take inotify instances from the host's per-user limit (128 on
# Debian). In one CI run here kube-proxy died of it ("failed complete: too
# many open files"), Services went unrouted and every in-pod fault proxy
# answered 502. Raise the limits to the values kind documents, when lower.
raise_limit() {
  local key="$1" want="$2" have
  have="$(sysctl -n "$key")"
  if (( have < want )); then
    sysctl -qw "$key=$want" 2>/dev/null ||
      echo "kind-run: warning: $key=$have, kind needs $want (as root: sysctl -w $key=$want)" >&2
  fi
}
raise_limit fs.inotify.max_user_instances 512
raise_limit fs.inotify.max_user_watches 524288
KIND_NODE_IMAGE="$("$HERE/kind-image.sh" | tail -n1)"
export KIND_NODE_IMAGE
"$HERE/images.sh"
exec "$@"
