#!/usr/bin/env bash
# The script of the cpln-local GitHub Action (.github/actions/cpln-local): starts cpln-local in the background for
# the rest of a job, waits until it answers, and tells the job where it is; `stop` ends it and everything it started.
#   scripts/cpln-local-action.sh start     env: CPLN_LOCAL_PORT (8080), CPLN_LOCAL_ORG (demo), CPLN_LOCAL_ADMIN_KEY
#                                          (required), CPLN_LOCAL_SEED (optional file), CPLN_LOCAL_VERSION (the npm
#                                          version; default this repository's), CPLN_LOCAL_COMMAND (the command
#                                          instead of `npx --yes cpln-local@<version>`), CPLN_LOCAL_STATE_DIR (where
#                                          the pid and the log go; default $RUNNER_TEMP or /tmp)
#   scripts/cpln-local-action.sh stop
# On start it appends endpoint=, org= to $GITHUB_OUTPUT and CPLN_ENDPOINT, CPLN_ORG, CPLN_TOKEN to $GITHUB_ENV when
# those are set (as in a job), so the provider's environment fallbacks point at the server. The admin key is masked.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state="${CPLN_LOCAL_STATE_DIR:-${RUNNER_TEMP:-/tmp}}/cpln-local"
mkdir -p "$state"

case "${1:-}" in
  start)
    port=${CPLN_LOCAL_PORT:-8080}
    org=${CPLN_LOCAL_ORG:-demo}
    key=${CPLN_LOCAL_ADMIN_KEY:?CPLN_LOCAL_ADMIN_KEY (the action input admin-key) is required}
    version=${CPLN_LOCAL_VERSION:-$(node -p 'require(process.argv[1]).version' "$root/package.json")}
    [ -n "${GITHUB_ACTIONS:-}" ] && echo "::add-mask::$key"
    read -r -a command <<<"${CPLN_LOCAL_COMMAND:-npx --yes cpln-local@$version}"
    args=(--port "$port" --org "$org" --data :memory:)
    [ -n "${CPLN_LOCAL_SEED:-}" ] && args+=(--seed "$CPLN_LOCAL_SEED")
    # Its own process group (setsid), so `stop` ends npx and the server together. The admin key goes through the
    # environment (CPLN_TOKEN, which cpln-local reads), never the command line `ps` shows.
    CPLN_TOKEN="$key" setsid "${command[@]}" "${args[@]}" >"$state/log" 2>&1 </dev/null &
    echo "$!" >"$state/pid"
    endpoint="http://127.0.0.1:$port"
    for _ in $(seq 1 600); do
      if curl -fs -H "Authorization: Bearer $key" "$endpoint/_cpln-local/health" >/dev/null 2>&1; then
        echo "cpln-local is serving org $org at $endpoint"
        if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'endpoint=%s\norg=%s\n' "$endpoint" "$org" >>"$GITHUB_OUTPUT"; fi
        if [ -n "${GITHUB_ENV:-}" ]; then
          printf 'CPLN_ENDPOINT=%s\nCPLN_ORG=%s\nCPLN_TOKEN=%s\n' "$endpoint" "$org" "$key" >>"$GITHUB_ENV"
        fi
        exit 0
      fi
      if ! kill -0 "$(cat "$state/pid")" 2>/dev/null; then
        echo "cpln-local exited before answering:" >&2
        cat "$state/log" >&2
        exit 1
      fi
      sleep 0.2
    done
    echo "cpln-local did not answer $endpoint/_cpln-local/health within 120 s:" >&2
    cat "$state/log" >&2
    exit 1
    ;;
  stop)
    [ -f "$state/pid" ] || { echo "cpln-local was not started"; exit 0; }
    group=$(cat "$state/pid")
    kill -TERM -- "-$group" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 -- "-$group" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$group" 2>/dev/null || true
    rm -f "$state/pid"
    cat "$state/log"
    ;;
  *)
    echo "usage: scripts/cpln-local-action.sh start|stop" >&2
    exit 2
    ;;
esac
