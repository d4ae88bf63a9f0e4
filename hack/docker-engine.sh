#!/usr/bin/env bash
# docker-engine.sh start|stop|env — a private Docker engine for builds and
# kind, for hosts where `docker` is only a client.
#
#   start  if an engine already answers (DOCKER_HOST or the default socket),
#          use it and change nothing; otherwise install Debian's docker.io if
#          dockerd is missing, and start a private dockerd (own socket, data
#          root and PID file under STEADYSTATE_DOCKER_DIR) with a runc
#          wrapper this host needs. Prints the DOCKER_HOST to use.
#   stop   stop the private dockerd, by the PID it recorded; never any other.
#   env    print the DOCKER_HOST of a running engine, or fail.
#
# The runc wrapper removes CAP_SYS_RESOURCE from container specs: this
# host's capability bounding set lacks it, and `docker run --privileged`
# (which kind always uses) fails with "unable to apply caps" otherwise.
set -euo pipefail

DIR="${STEADYSTATE_DOCKER_DIR:-/var/lib/steadystate-docker}"
SOCK="$DIR/docker.sock"
PIDFILE="$DIR/dockerd.pid"
PRIVATE="unix://$SOCK"

log() { printf 'docker-engine: %s\n' "$*" >&2; }
die() { printf 'docker-engine: error: %s\n' "$*" >&2; exit 1; }

answers() { DOCKER_HOST="$1" docker info >/dev/null 2>&1; }

existing_engine() {
  if [[ -n "${DOCKER_HOST:-}" && "$DOCKER_HOST" != "$PRIVATE" ]] && answers "$DOCKER_HOST"; then echo "$DOCKER_HOST"; return; fi
  if answers unix:///var/run/docker.sock; then echo unix:///var/run/docker.sock; return; fi
  return 1
}

ours_running() {
  [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null && answers "$PRIVATE"
}

install_engine() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v jq >/dev/null || missing+=(jq) # for the runc wrapper
  ((${#missing[@]})) || return 0
  [[ $(id -u) == 0 ]] || die "${missing[*]} not installed and this is not root: install them (apt-get install ${missing[*]}) or start an engine, then retry"
  log "installing Debian's ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

write_runc_wrapper() {
  local real
  real="$(command -v runc)" || die "runc is missing (it comes with docker.io)"
  cat >"$DIR/runc-wrapper" <<WRAP
#!/bin/sh
# Drop CAP_SYS_RESOURCE from the OCI specs this runc is given, then exec the
# real runc ($real). Made by hack/docker-engine.sh.
strip() { [ -f "\$1" ] && jq 'walk(if type == "array" then map(select(. != "CAP_SYS_RESOURCE")) else . end)' "\$1" > "\$1.tmp" && mv "\$1.tmp" "\$1"; }
bundle=""; prev=""
for a in "\$@"; do
  case "\$prev" in --bundle|-b) bundle="\$a";; --process|-p) strip "\$a";; esac
  case "\$a" in --bundle=*) bundle="\${a#--bundle=}";; --process=*) strip "\${a#--process=}";; esac
  prev="\$a"
done
[ -n "\$bundle" ] && strip "\$bundle/config.json"
exec "$real" "\$@"
WRAP
  chmod +x "$DIR/runc-wrapper"
}

start() {
  if engine="$(existing_engine)"; then
    log "using the engine that already answers at $engine"
    echo "$engine"
    return
  fi
  if ours_running; then
    echo "$PRIVATE"
    return
  fi
  install_engine
  [[ $(id -u) == 0 ]] || die "starting dockerd needs root"
  mkdir -p "$DIR"
  write_runc_wrapper
  log "starting a private dockerd (socket $SOCK, log $DIR/dockerd.log)"
  # In a session of its own: a Ctrl-C meant for the harness must not stop
  # the engine under the harness's cleanup (deleting its kind cluster).
  setsid dockerd --host "$PRIVATE" --data-root "$DIR/data" --exec-root "$DIR/exec" --pidfile "$PIDFILE" \
    --add-runtime "steadystate-runc=$DIR/runc-wrapper" --default-runtime steadystate-runc \
    --iptables=true >"$DIR/dockerd.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 120); do
    if answers "$PRIVATE"; then
      log "dockerd $pid ready"
      echo "$PRIVATE"
      return
    fi
    kill -0 "$pid" 2>/dev/null || die "dockerd exited at start; last log lines:
$(tail -n 8 "$DIR/dockerd.log")"
    sleep 0.5
  done
  kill "$pid" 2>/dev/null || true
  die "dockerd did not answer within 60s; see $DIR/dockerd.log"
}

stop() {
  [[ -f "$PIDFILE" ]] || { log "no private dockerd recorded in $PIDFILE"; return; }
  local pid
  pid="$(cat "$PIDFILE")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    log "stopped dockerd $pid"
  fi
  rm -f "$PIDFILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) if engine="$(existing_engine)"; then echo "$engine"; elif ours_running; then echo "$PRIVATE"; else die "no Docker engine answers: run hack/docker-engine.sh start"; fi ;;
  *) die "usage: docker-engine.sh start|stop|env" ;;
esac
