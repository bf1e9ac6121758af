#!/usr/bin/env bash
# `scripts/image.sh --check`: runs the cpln-local image (default localhost/cpln-local:<version>, built by
# scripts/image.sh) with podman, as root, and checks what a user of the image relies on:
#   1. the org's policies with the admin key: 200, a list holding the seeded superusers-gvc and viewers-gvc;
#   2. the same request without a key: 401;
#   3. the server runs as the image's `node` user (uid 1000), not root, and the key is on no command line;
#   4. a gvc created in one container is read back from a new container on the same /data volume.
# Prints the time from `podman run` to the first answer of each container. The admin key is CPLN_TOKEN (a random one
# when unset): podman gets the variable's name only (`-e CPLN_TOKEN`) and curl reads the header from stdin, so it is
# on no command line. The container and the volume are removed at the end, whatever the outcome.
# CPLN_IMAGE_NETWORK=publish (default: -p 127.0.0.1:<free port>:8080) or host (--network host, --port <free port>).
# What this VM needs of podman (each found by trying; docs/cpln-local.md): the runc runtime (Debian's podman
# defaults to crun 1.8, which refuses this VM's hybrid cgroup v1/v2 layout: "cgroups in hybrid mode not supported"),
# and explicit nofile/nproc limits when root lacks CAP_SYS_RESOURCE (podman's defaults for root, 1048576 files and
# more processes than the hard limit, fail with "setrlimit RLIMIT_NOFILE: Operation not permitted").
set -euo pipefail
image=${1:?usage: scripts/image-check.sh <image>}
network=${CPLN_IMAGE_NETWORK:-publish}
org=demo
command -v podman >/dev/null || {
  echo "image-check: needs podman (apt-get install podman)" >&2
  exit 1
}
podman=(podman)
command -v runc >/dev/null && podman+=(--runtime runc)
limits=()
# CAP_SYS_RESOURCE is bit 24 of the effective capabilities: without it no limit can go above its hard value.
if (((0x$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status) >> 24 & 1) == 0)); then
  limits=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=32768:32768)
fi
podman image exists "$image" || {
  echo "image-check: no image $image; build it with scripts/image.sh" >&2
  exit 1
}
if [ -z "${CPLN_TOKEN:-}" ]; then CPLN_TOKEN=$(node -p 'require("node:crypto").randomBytes(24).toString("hex")'); fi
export CPLN_TOKEN
free_port='const s = require("node:net").createServer();
s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
port=$(node -e "$free_port")
endpoint="http://127.0.0.1:$port"
name="cpln-local-check-$$"
volume="cpln-local-check-$$"
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  "${podman[@]}" rm --force --time 0 "$name" >/dev/null 2>&1 || true
  podman volume rm --force "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT
podman volume create "$volume" >/dev/null

failed=0
check() { # check <description> <condition command...>
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else
    echo "FAIL $what"
    failed=1
  fi
}
# request <method> <path> [body] [key|nokey]: prints the status on line 1 (000: nothing answered) and the body after it.
request() {
  local method=$1 path=$2 body=${3:-} auth=${4:-key}
  {
    [ "$auth" = key ] && printf 'header = "Authorization: Bearer %s"\n' "$CPLN_TOKEN"
    [ -n "$body" ] && printf 'header = "Content-Type: application/json"\ndata = "%s"\n' "${body//\"/\\\"}"
    printf 'request = "%s"\nurl = "%s%s"\nwrite-out = "\\n%%{http_code}"\nsilent\n' "$method" "$endpoint" "$path"
  } | { curl -K - || true; } | awk '{ lines[NR] = $0 } END { print lines[NR]; for (i = 1; i < NR; i++) print lines[i] }'
}

start() {
  local args=(--name "$name" --detach "${limits[@]}" -e CPLN_TOKEN -v "$volume:/data") started now status
  if [ "$network" = host ]; then
    args+=(--network host "$image" --data /data/cpln-local.db --port "$port")
  else
    args+=(-p "127.0.0.1:$port:8080" "$image")
  fi
  started=$(date +%s%N)
  "${podman[@]}" run "${args[@]}" >/dev/null
  for _ in $(seq 1 600); do
    status=$(request GET /_cpln-local/health | head -n 1)
    if [ "$status" = 200 ]; then
      now=$(date +%s%N)
      echo "     $1 container: answering $(((now - started) / 1000000)) ms after podman run"
      return 0
    fi
    [ "$("${podman[@]}" inspect --format '{{.State.Running}}' "$name")" = true ] || break
    sleep 0.05
  done
  echo "image-check: the container did not answer $endpoint; its log:" >&2
  "${podman[@]}" logs "$name" >&2
  exit 1
}

start first
policies=$(request GET "/org/$org/policy")
names=$(sed 1d <<<"$policies" | jq -r '.items[].name' 2>/dev/null | sort)
check "GET /org/$org/policy with the admin key: 200" [ "$(head -n 1 <<<"$policies")" = 200 ]
check "  lists the seeded superusers-gvc ($(grep -c . <<<"$names") policies)" grep -qx -e superusers-gvc <<<"$names"
check "  lists the seeded viewers-gvc" grep -qx -e viewers-gvc <<<"$names"
check "GET /org/$org/policy without a key: 401" [ "$(request GET "/org/$org/policy" "" nokey | head -n 1)" = 401 ]
check "the server runs as uid 1000 (node)" [ "$("${podman[@]}" exec "$name" id -u)" = 1000 ]
# While it runs, no process of this machine (podman, conmon, the server, curl) has the key among its arguments.
# (grep reads the key from a file descriptor: printf is a shell builtin, so the key is on no argument list here.)
# shellcheck disable=SC2009,SC2317 # all arguments are the point (pgrep -f would list the key); check calls it
key_unlisted() { ! ps -eo args= | grep -qF -f <(printf '%s\n' "$CPLN_TOKEN"); }
check "the admin key is on no command line (ps)" key_unlisted
created=$(request POST "/org/$org/gvc" '{"name":"image-check","description":"made by scripts/image-check.sh"}')
check "POST /org/$org/gvc image-check: 201" [ "$(head -n 1 <<<"$created")" = 201 ]

"${podman[@]}" rm --force --time 10 "$name" >/dev/null
start "a new"
gvc=$(request GET "/org/$org/gvc/image-check")
check "GET /org/$org/gvc/image-check from a new container on the same volume: 200" [ "$(head -n 1 <<<"$gvc")" = 200 ]
check "  with the description it was created with" \
  [ "$(sed 1d <<<"$gvc" | jq -r .description)" = "made by scripts/image-check.sh" ]
exit "$failed"
