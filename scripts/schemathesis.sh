#!/usr/bin/env bash
# Runs Schemathesis (https://schemathesis.readthedocs.io) with ALL its checks against the OpenAPI document a fresh
# cpln-local serves, and exits non-zero on any failure or error. `npm run schemathesis` (after `npm run build`).
#
# - Schemathesis comes from PyPI (npm has no build of it) into a venv cached by version under
#   ${CPLN_PULUMI_CACHE:-~/.cache/cpln-pulumi}/schemathesis-<version>-<hash of the pins>/; every package is pinned in
#   scripts/schemathesis/requirements.txt. A missing or incomplete cache is rebuilt. Needs python3 with venv.
# - The server is dist/server/cli.js on 127.0.0.1, port 0, in-memory data, with an admin key drawn here and passed
#   through the environment (CPLN_TOKEN), never on a command line; Schemathesis reads it from the environment too
#   (its config file says `${CPLN_TOKEN}`). The server is stopped on exit, whatever happens.
# - `scripts/schemathesis.sh --install` only makes the venv (no dist/ needed): .ci/run starts it beside npm ci.
# - Budget: SCHEMATHESIS_MAX_EXAMPLES (default 25 since issue 39; 5 before) cases per operation and phase, one
#   worker (Python 3.11's ast is not thread-safe: two workers made Hypothesis fail with "AST constructor recursion
#   depth mismatch"), a fixed seed (SCHEMATHESIS_SEED) so a CI failure can be replayed. Minutes: see docs/security.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
requirements="$root/scripts/schemathesis/requirements.txt"
version=$(sed -n -E 's/^schemathesis==([^ ]+)$/\1/p' "$requirements")
[ -n "$version" ] || { echo "schemathesis: no schemathesis== pin in $requirements" >&2; exit 1; }
pins=$(sha256sum "$requirements" | cut -c1-12)
venv="${CPLN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi}/schemathesis-$version-$pins"

complete() { [ -x "$venv/bin/schemathesis" ] && [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" = "schemathesis, version $version" ]; }
if ! complete; then
  command -v python3 >/dev/null 2>&1 || { echo "schemathesis: needs python3 (with venv) and PyPI" >&2; exit 1; }
  # One install at a time: a second run waits, then finds the venv the first one made.
  command -v flock >/dev/null 2>&1 || { echo "schemathesis: needs flock(1) (util-linux) so that two installs never run at once" >&2; exit 1; }
  mkdir -p "$(dirname "$venv")"
  exec 9>"$venv.lock"
  flock 9
  if ! complete; then
    echo "schemathesis: installing $version into $venv" >&2
    rm -rf "$venv"
    # Built where it lives (a venv's scripts name their directory); `complete` fails on a half-built one.
    python3 -m venv "$venv" || { rm -rf "$venv"; echo "schemathesis: python3 -m venv failed" >&2; exit 1; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$requirements" ||
      { rm -rf "$venv"; echo "schemathesis: pip install failed" >&2; exit 1; }
    complete || { rm -rf "$venv"; echo "schemathesis: $venv does not report version $version" >&2; exit 1; }
  fi
  exec 9>&-
fi
[ "${1:-}" = "--install" ] && exit 0

[ -f "$root/dist/server/cli.js" ] || { echo "schemathesis: dist/server/cli.js is missing; run npm run build" >&2; exit 1; }
work=$(mktemp -d)
server_pid=""
cleanup() {
  # The jobs' Schemathesis processes, found by their config file (a path of this run's own).
  pkill -f -- "--config-file $work/schemathesis.toml" 2>/dev/null || true
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

CPLN_TOKEN="st-$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
export CPLN_TOKEN
node "$root/dist/server/cli.js" --host 127.0.0.1 --port 0 --data :memory: --no-console >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 300); do
  url=$(sed -n -E 's#^cpln-local listening on (http://[^ ]+)$#\1#p' "$work/server.log")
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "schemathesis: cpln-local exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log" >&2; echo "schemathesis: cpln-local did not start in 30 s" >&2; exit 1; }

cat >"$work/schemathesis.toml" <<'TOML'
headers = { Authorization = "Bearer ${CPLN_TOKEN}" }

# A query cursor carries its query, so an invalid one can be longer than Node's 16 KiB request head: it is refused
# with the 431 these operations document (before any handler runs) instead of a 400. A rejection all the same.
[[operations]]
include-method = "GET"
include-path-regex = "/-query$"
checks.negative_data_rejection.expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "431", "5xx"]

# A snapshot import is valid by rules across its records (each a valid record of its kind, the gvcs its records name
# among them, no two with one id, keys only for accounts that list them: the operation's description); JSON Schema
# states each record's kind, not those rules, so a schema-valid snapshot may be refused with the 400 that names the
# record and the rule.
[[operations]]
include-method = "PUT"
include-path-regex = "^/_cpln-local/org/[^/]+/state$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]

# A join script for a cluster whose provider has none (aws, gcp, ...) is refused with 400 Unsupported: the API
# document this project implements says so ("Join script requested for a provider that does not support it | 400",
# endpoint 4). The body is valid by the schema; the cluster's provider decides, which JSON Schema cannot state.
[[operations]]
include-method = "POST"
include-path-regex = "^/org/[^/]+/mk8s/[^/]+/-join$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]

# Secret data is checked against the secret's type after the write (a PATCH or PUT merges with the stored type and
# data), tls and keypair PEM must parse and gcp/azure-sdk/docker data is JSON text: rules the document states as
# x-cpln-rules (SecretCreate, SecretPatch), with the 400 naming data.<field> and the type. An identity's
# cloudAccountLink must name an existing cloud account of its provider, and a merge must keep the xor rules
# (IdentityCreate, IdentityPatch x-cpln-rules). Stored objects decide, which JSON Schema cannot state.
[[operations]]
include-method = "POST"
include-path-regex = "^/org/[^/]+/(secret(/[^/]+)?|gvc/[^/]+/identity(/[^/]+)?)$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]
include-method = "PUT"
include-path-regex = "^/org/[^/]+/(secret(/[^/]+)?|gvc/[^/]+/identity(/[^/]+)?)$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]
include-method = "PATCH"
include-path-regex = "^/org/[^/]+/(secret(/[^/]+)?|gvc/[^/]+/identity(/[^/]+)?)$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]

# A body over cpln-local's 1 MiB limit is refused with 413 before it is parsed (server/app.ts, BODY_LIMIT): a
# rejection, whatever it held (the coverage phase drew a 1.17 MB schema-violating PUT of a domain). The rest of the
# list is Schemathesis' default for this check.
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]

# The stateful phase follows the document's links (each create links to the operations on the object it made, and
# under it, naming it by name) and the Location headers of creates. Its dependency analysis is off: it guesses that
# a path parameter such as {gvc} takes the id of the object a create returned, where every path of this API names
# objects by name.
[phases.stateful.inference]
algorithms = ["location-headers"]
TOML
# Processes: one worker each (above), so a lone process left the second core idle for the whole run (16 minutes of a
# fresh-clone CI run, 2026-11-28); separate processes share no interpreter. SCHEMATHESIS_SHARDS (default: the cores)
# processes at a time, each running the next job of the list below when it ends one.
shards=${SCHEMATHESIS_SHARDS:-$(nproc)}
"$venv/bin/python" - "$url/openapi.json" "$shards" >"$work/shards" <<'PY' || { echo "schemathesis: cannot read $url/openapi.json" >&2; exit 1; }
import json, os, re, sys, urllib.request
url, count = sys.argv[1], max(1, int(sys.argv[2]))
request = urllib.request.Request(url, headers={"Authorization": "Bearer " + os.environ["CPLN_TOKEN"]})
document = json.load(urllib.request.urlopen(request, timeout=30))
sizes = {}
def size(node, within=()):
    """Nodes in a schema with its $refs resolved: the coverage phase's cases grow with it (a workload's took 3.6x the
    time of the 60 other kinds' paths dealt by operation count)."""
    if isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if ref in within:
            return 1
        if ref not in sizes:
            target = document
            for part in ref.lstrip("#/").split("/"):
                target = target[part]
            sizes[ref] = size(target, within + (ref,))
        return sizes[ref]
    if isinstance(node, dict):
        return 1 + sum(size(value, within) for value in node.values())
    if isinstance(node, list):
        return 1 + sum(size(value, within) for value in node)
    return 1
methods = {"get", "put", "post", "patch", "delete"}
operations = [(size(operation), method.upper(), template)
              for template, item in document["paths"].items()
              for method, operation in item.items() if method in methods]
# Jobs, a process taking the next when one ends (xargs -P). First the fuzzing and stateful phases over every
# operation in one process: the stateful phase follows the links the earlier phase's creates answered with (Location
# headers: ~1,300 inferred; run alone it covered none of the document's 216), and the links between kinds (a gvc's
# workloads, a policy's targets) stay whole. Then the coverage phase, whose cost is per operation and hard to foresee
# (POST of an identity took longer than 90 s, every workload operation together 63 s), in bins of about a 32nd of the
# total weight (a heavier operation alone; writes and reads apart), heaviest first: small jobs bound what a misjudged
# one costs, and each process start (~3 s) is paid per job.
target = sum(weight for weight, _, _ in operations) / 32
jobs, bins = [], {}
for weight, method, template in sorted(operations, key=lambda operation: (-operation[0], operation[1], operation[2])):
    kind = "write" if method in ("POST", "PUT", "PATCH") else "read"
    current = bins.setdefault(kind, [0, []])
    current[0] += weight
    current[1].append((method, template))
    if current[0] >= target:
        jobs.append(bins.pop(kind))
jobs.extend(bins.values())
print("fuzzing,stateful")
for _, members in sorted(jobs, key=lambda job: -job[0]):
    print("\t".join(["examples,coverage"] + [f"{method} {template}" for method, template in members]))
PY
# One Schemathesis process per job, $shards at a time (xargs -P); each job's log is run-<job>.log.
run_job() {
  local job names=()
  IFS=$'\t' read -r -a job < <(sed -n "$(($1 + 1))p" "$work/shards")
  for name in "${job[@]:1}"; do names+=(--include-name "$name"); done
  cd "$work" && "$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" --no-color run \
    --checks all \
    --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-25}" \
    --workers 1 \
    --seed "${SCHEMATHESIS_SEED:-20261125}" \
    --generation-database none \
    --request-timeout 35 \
    --phases "${job[0]}" \
    "${names[@]}" \
    "$url/openapi.json" >"$work/run-$1.log" 2>&1
}
export -f run_job
export work venv url
jobs=$(wc -l <"$work/shards")
started=$SECONDS
seq 0 $((jobs - 1)) | xargs -P "$shards" -I{} bash -c 'run_job {}; echo "$?" >"$work/status-{}"' || true
# The whole logs, for a failure's context or the phases' times: SCHEMATHESIS_LOG=<file> (the jobs' one after another).
failed=0 operations=0 cases=0 passed=0 skipped=0
: >"$work/warnings"
for index in $(seq 0 $((jobs - 1))); do
  status=$(cat "$work/status-$index" 2>/dev/null || echo "none")
  log="$work/run-$index.log"
  [ -z "${SCHEMATHESIS_LOG:-}" ] || { [ "$index" -eq 0 ] && : >"$SCHEMATHESIS_LOG"; cat "$log" >>"$SCHEMATHESIS_LOG"; }
  # The report. A failure or error: the failures and errors in full, then Schemathesis' summary. A clean run: one
  # line of ours, not Schemathesis' pytest-style "=== … in Ns ===" line, which a CI log reader may take for a test
  # runner's summary of zero tests (the README's test command is the project's test summary).
  summary=$(grep -E '^=+ .* in [0-9.]+s =+$' "$log" | tail -n 1)
  if [ -z "$summary" ]; then
    tail -n 40 "$log" >&2
    echo "schemathesis: job $((index + 1)) of $jobs: no summary line (exit $status)" >&2
    failed=1
    continue
  fi
  # Exit 0 and no failure or error in the summary: anything else fails the run.
  if [ "$status" != 0 ] || grep -qE '[0-9]+ (failures?|errors?)' <<<"$summary"; then
    sed -n '/^=* \(FAILURES\|ERRORS\) =*$/,$p' "$log"
    grep -q '^=* \(FAILURES\|ERRORS\) =*$' "$log" || sed -n '/^=* SUMMARY =*$/,$p' "$log"
    echo "schemathesis $version: job $((index + 1)) of $jobs FAILED (exit $status): $summary"
    failed=1
    continue
  fi
  read -r job_cases job_passed job_skipped < <(sed -n -E 's/^ *([0-9]+) generated, ([0-9]+) passed(, ([0-9]+) skipped)?.*$/\1 \2 \4/p' "$log" | tail -n 1) || true
  tested=$(sed -n -E 's/^ *Tested: ([0-9]+)$/\1/p' "$log" | tail -n 1)
  # Every operation is in the fuzzing job and in one coverage job: the run tested the most any job did.
  [ "${tested:-0}" -le "$operations" ] || operations=$tested
  cases=$((cases + ${job_cases:-0})) passed=$((passed + ${job_passed:-0})) skipped=$((skipped + ${job_skipped:-0}))
  grep -E '^ *⚠️' "$log" | sed -E 's/^ *⚠️ *//; s/[0-9]+ operations?/some operations/' >>"$work/warnings" || true
done
if [ "$failed" -ne 0 ]; then
  # Whether cpln-local was still there, and what it said last: a finding of "Server Unavailable" is a crash or a stall.
  if kill -0 "$server_pid" 2>/dev/null; then echo "schemathesis: cpln-local is still running; its last log lines:" >&2
  else echo "schemathesis: cpln-local has exited; its last log lines:" >&2; fi
  tail -n 20 "$work/server.log" >&2
  exit 1
fi
warnings=$(sort "$work/warnings" | uniq -c | sed -E 's/^ *([0-9]+) (.*)$/\2 (\1 jobs)/' | paste -sd ';' -)
echo "schemathesis $version: no failure, no error; $operations operations in $jobs jobs on $shards processes, $cases cases, $passed without a finding, $skipped skipped, $((SECONDS - started)) s, seed ${SCHEMATHESIS_SEED:-20261125}${warnings:+; warnings: $warnings}"
