#!/usr/bin/env bash
# kind-image.sh builds an offline kind node image for KUBE_VERSION from source,
# for hosts that cannot pull kindest/node (see docs/kind.md),
# and prints its name on the last line. An image already present is not rebuilt.
#
# Environment:
#   KUBE_VERSION          Kubernetes version (default v1.36.3)
#   KIND_NODE_IMAGE       image name (default steadystate/kind-node:$KUBE_VERSION)
#   STEADYSTATE_CACHE_DIR cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/steadystate)
#   DEBIAN_MIRROR         where debootstrap fetches from (default: this host's apt source)
#   DOCKER_HOST           the engine to build with (hack/docker-engine.sh start gives one)
#
# Pieces, each built once and cached under $STEADYSTATE_CACHE_DIR/kind:
#   root filesystem  debootstrap of Debian bookworm with systemd and containerd
#   kind's files     entrypoint, scripts and units from the sigs.k8s.io/kind module
#   Kubernetes       kubeadm, kubelet, kubectl and the control plane (cluster/local/kube-bins.sh)
#   coredns, CNI     the versions kubeadm and kind pin, built with go install
#   pause            pause.c from the Kubernetes source, gcc -static
# The component images (one per binary, tagged as kubeadm expects) are loaded
# into the node's containerd, the way kind's own node-image build does.
set -euo pipefail
export DOCKER_BUILDKIT=0 # the legacy builder, explicitly: Debian's docker.io has no buildx

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
IMAGE="${KIND_NODE_IMAGE:-steadystate/kind-node:$KUBE_VERSION}"
CACHE_ROOT="${STEADYSTATE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/steadystate}"
KIND_CACHE="$CACHE_ROOT/kind"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
BASE_IMAGE="steadystate/kind-base:bookworm"

log() { printf 'kind-image: %s\n' "$*" >&2; }
die() { printf 'kind-image: error: %s\n' "$*" >&2; exit 1; }

docker info >/dev/null 2>&1 || die "no Docker engine answers (DOCKER_HOST=${DOCKER_HOST:-unset}); start one with: export DOCKER_HOST=\"\$(hack/docker-engine.sh start)\""
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "$IMAGE already exists"
  echo "$IMAGE"
  exit 0
fi
# Where a registry answers (kindest/node on a CI runner), pull instead.
if [[ "$IMAGE" != steadystate/kind-node:* ]]; then
  log "pulling $IMAGE"
  docker pull -q "$IMAGE" >/dev/null || die "cannot pull $IMAGE: unset KIND_NODE_IMAGE to build steadystate/kind-node:$KUBE_VERSION from source instead"
  echo "$IMAGE"
  exit 0
fi
start=$(date +%s)
step() { log "[$1/7] $2 ($(( $(date +%s) - start ))s)"; }
# build ARGS: docker build, quiet unless it fails.
build() { docker build -q "$@" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; return 1; }; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/steadystate-kind-image.XXXXXX")"
CONTAINER=""
cleanup() {
  [[ -z "$CONTAINER" ]] || docker rm -f "$CONTAINER" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# components OUT: one image per component, tagged as kubeadm expects, saved
# into OUT/images.tar. FROM scratch where the binary is static and needs
# nothing else; kube-proxy runs iptables, so it gets the root filesystem.
components() {
  local out="$1" name bin base entry tags=()
  mkdir -p "$out"
  for spec in \
    "kube-apiserver:$KUBE_VERSION|kube-apiserver|scratch|" \
    "kube-controller-manager:$KUBE_VERSION|kube-controller-manager|scratch|" \
    "kube-scheduler:$KUBE_VERSION|kube-scheduler|scratch|" \
    "kube-proxy:$KUBE_VERSION|kube-proxy|$BASE_IMAGE|" \
    "etcd:$ETCD_TAG|etcd|scratch|" \
    "coredns/coredns:$COREDNS_VERSION|coredns|scratch|/coredns" \
    "pause:$PAUSE_VERSION|pause|scratch|/pause"; do
    IFS='|' read -r name bin base entry <<<"$spec"
    local ctx="$out/$bin"
    mkdir -p "$ctx"
    if [[ -x "$BIN_DIR/$bin" ]]; then cp "$BIN_DIR/$bin" "$ctx/$bin"; else cp "$TOOLS/$bin" "$ctx/$bin"; fi
    {
      echo "FROM $base"
      if [[ -n "$entry" ]]; then
        echo "COPY $bin $entry"
        echo "ENTRYPOINT [\"$entry\"]"
      else
        echo "COPY $bin /usr/local/bin/$bin"
        echo "ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
      fi
    } >"$ctx/Dockerfile"
    build -t "registry.k8s.io/$name" "$ctx" || die "building image registry.k8s.io/$name failed"
    tags+=("registry.k8s.io/$name")
  done
  docker save -o "$out/images.tar" "${tags[@]}" || die "saving the component images failed"
}

# node_context OUT: the node image's build context for hack/kind/node.Dockerfile.
node_context() {
  local out="$1"
  mkdir -p "$out/bin" "$out/cni" "$out/overlay/kind/manifests" "$out/overlay/etc/cni/net.d" "$out/overlay/etc/default"
  cp -r "$KIND_DIR/images/base/files" "$out/kind"
  chmod -R u+w "$out/kind"
  cp "$BIN_DIR/kubeadm" "$BIN_DIR/kubelet" "$BIN_DIR/kubectl" "$TOOLS/crictl" "$out/bin/"
  cp "$TOOLS/ptp" "$TOOLS/loopback" "$TOOLS/host-local" "$TOOLS/portmap" "$out/cni/"
  cp "$HERE/kind/node.Dockerfile" "$out/Dockerfile"
  cp "$HERE/kind/default-cni.yaml" "$HERE/kind/default-storage.yaml" "$out/overlay/kind/manifests/"
  cp "$HERE/kind/10-steadystate-ptp.conflist" "$out/overlay/etc/cni/net.d/"
  echo "$KUBE_VERSION" >"$out/overlay/kind/version"
  # This host: cgroup v1 (kubelet 1.36 refuses it unless told), and no
  # negative oom_score_adj inside containers.
  echo "KUBELET_EXTRA_ARGS=--runtime-cgroups=/system.slice/containerd.service --fail-cgroupv1=false" >"$out/kind/etc/default/kubelet"
  sed -e 's#^\([[:space:]]*sandbox_image = \).*#\1"registry.k8s.io/pause:'"$PAUSE_VERSION"'"#' \
      -e 's#^\([[:space:]]*restrict_oom_score_adj = \).*#\1true#' \
      "$KIND_DIR/images/base/files/etc/containerd/config.toml" >"$out/kind/etc/containerd/config.toml"
}

step 1 "Kubernetes binaries $KUBE_VERSION"
BIN_DIR="$(KUBE_EXTRA_BINS="kubeadm kubelet kubectl kube-scheduler kube-proxy" "$HERE/../cluster/local/kube-bins.sh" | tail -n1)"
KDIR="$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
CONSTANTS="$KDIR/cmd/kubeadm/app/constants/constants.go"
pinned() { sed -n 's/^[[:space:]]*'"$1"'[[:space:]]*=[[:space:]]*"\(.*\)"/\1/p' "$CONSTANTS" | head -n1; }
ETCD_TAG="$(pinned DefaultEtcdVersion)"
COREDNS_VERSION="$(pinned CoreDNSVersion)"
PAUSE_VERSION="$(pinned PauseVersion)"
[[ -n "$ETCD_TAG" && -n "$COREDNS_VERSION" && -n "$PAUSE_VERSION" ]] || die "cannot read kubeadm's pinned etcd, coredns and pause versions from $CONSTANTS"

KIND_VERSION="$(cd "$ROOT" && go list -m -f '{{.Version}}' sigs.k8s.io/kind)"
KIND_DIR="$(cd "$ROOT" && go list -m -f '{{.Dir}}' sigs.k8s.io/kind)"
[[ -d "$KIND_DIR/images/base/files" ]] || KIND_DIR="$(go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
kind_arg() { sed -n 's/^ARG '"$1"'="\(.*\)"/\1/p' "$KIND_DIR/images/base/Dockerfile" | head -n1; }
CNI_VERSION="$(kind_arg CNI_PLUGINS_VERSION)"
CRICTL_VERSION="$(kind_arg CRICTL_VERSION)"
[[ -n "$CNI_VERSION" && -n "$CRICTL_VERSION" ]] || die "cannot read the CNI plugins and crictl versions from kind $KIND_VERSION's base Dockerfile"

step 2 "coredns $COREDNS_VERSION, CNI plugins $CNI_VERSION, crictl $CRICTL_VERSION, pause $PAUSE_VERSION"
TOOLS="$KIND_CACHE/tools/$COREDNS_VERSION-$CNI_VERSION-$CRICTL_VERSION-$PAUSE_VERSION"
if [[ ! -x "$TOOLS/pause" ]]; then
  mkdir -p "$TOOLS.tmp"
  CGO_ENABLED=0 GOBIN="$TOOLS.tmp" go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION" 2> >(grep -v '^go: downloading' >&2) \
    || die "building coredns $COREDNS_VERSION failed (see above)"
  for p in main/ptp main/loopback ipam/host-local meta/portmap; do
    CGO_ENABLED=0 GOBIN="$TOOLS.tmp" go install -trimpath -ldflags "-s -w" "github.com/containernetworking/plugins/plugins/$p@$CNI_VERSION" 2> >(grep -v '^go: downloading' >&2) \
      || die "building CNI plugin $p $CNI_VERSION failed (see above)"
  done
  # The proxy will not list cri-tools' versions, which go install needs:
  # build it from a wrapper module instead.
  mkdir -p "$WORK/crictl"
  printf 'module steadystate.local/crictl\n\ngo 1.26.0\n\nrequire sigs.k8s.io/cri-tools %s\n' "$CRICTL_VERSION" >"$WORK/crictl/go.mod"
  (cd "$WORK/crictl" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$TOOLS.tmp/crictl" sigs.k8s.io/cri-tools/cmd/crictl) 2> >(grep -v '^go: downloading' >&2) \
    || die "building crictl $CRICTL_VERSION failed (see above)"
  command -v gcc >/dev/null || die "gcc is needed for the pause binary: apt-get install -y gcc libc6-dev"
  gcc -Os -static -DVERSION="v$PAUSE_VERSION-steadystate" -o "$TOOLS.tmp/pause" "$KDIR/build/pause/linux/pause.c" \
    || die "building pause failed (static glibc: apt-get install -y libc6-dev)"
  rm -rf "$TOOLS" && mv "$TOOLS.tmp" "$TOOLS"
fi

step 3 "Debian bookworm root filesystem"
ROOTFS_TAR="$KIND_CACHE/rootfs-bookworm.tar"
if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  if [[ ! -s "$ROOTFS_TAR" ]]; then
    command -v debootstrap >/dev/null || { log "installing debootstrap"; apt-get install -y debootstrap >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y debootstrap >/dev/null; } || die "cannot install debootstrap (apt-get install -y debootstrap)"; }
    mirror="${DEBIAN_MIRROR:-$(sed -n 's/^URIs:[[:space:]]*\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)}"
    mirror="${mirror:-http://deb.debian.org/debian}"
    log "debootstrap from $mirror (1 to 3 minutes)"
    debootstrap --variant=minbase \
      --include=systemd,systemd-sysv,dbus,containerd,runc,iptables,iproute2,ca-certificates,mount,kmod,socat,conntrack,ethtool,util-linux,jq,procps,libseccomp2 \
      bookworm "$WORK/rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
      || { tail -n 20 "$WORK/debootstrap.log" >&2; die "debootstrap failed (log above); set DEBIAN_MIRROR to a reachable Debian mirror"; }
    rm -rf "$WORK/rootfs/var/cache/apt/archives/"*.deb "$WORK/rootfs/var/lib/apt/lists/"*
    mkdir -p "$KIND_CACHE"
    tar -C "$WORK/rootfs" -cf "$ROOTFS_TAR.tmp" . && mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
    rm -rf "$WORK/rootfs"
  fi
  docker import "$ROOTFS_TAR" "$BASE_IMAGE" >/dev/null
fi

step 4 "component images"
components "$WORK/components"

step 5 "node filesystem"
node_context "$WORK/node"
build --build-arg BASE_IMAGE="$BASE_IMAGE" -t "$IMAGE-unloaded" "$WORK/node" || die "building the node image failed"

step 6 "preloading the component images into the node's containerd"
CONTAINER="$(docker run -d --privileged --entrypoint sleep "$IMAGE-unloaded" infinity)"
docker exec "$CONTAINER" sh -c 'mkdir -p /run/containerd && (containerd >/var/log/containerd-preload.log 2>&1 &) && for i in $(seq 100); do ctr version >/dev/null 2>&1 && exit 0; sleep 0.1; done; cat /var/log/containerd-preload.log; exit 1' \
  || die "containerd did not start inside the node image"
docker exec -i "$CONTAINER" ctr -n k8s.io images import --no-unpack --all-platforms --digests - <"$WORK/components/images.tar" >/dev/null \
  || die "importing the component images failed"
docker exec "$CONTAINER" sh -c 'pkill containerd; for i in $(seq 100); do pgrep containerd >/dev/null || exit 0; sleep 0.1; done; exit 1' || true

step 7 "committing $IMAGE"
# ENV and STOPSIGNAL carry over from the image; the entrypoint was replaced.
docker commit --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' --change 'CMD []' \
  "$CONTAINER" "$IMAGE" >/dev/null || die "committing $IMAGE failed"
docker rm -f "$CONTAINER" >/dev/null && CONTAINER=""
docker rmi "$IMAGE-unloaded" >/dev/null 2>&1 || true
log "built $IMAGE in $(( $(date +%s) - start ))s"
echo "$IMAGE"
