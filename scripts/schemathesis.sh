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
  echo "schemathesis: installing $version into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  # Built where it lives (a venv's scripts name their directory); `complete` fails on a half-built one.
  python3 -m venv "$venv" || { rm -rf "$venv"; echo "schemathesis: python3 -m venv failed" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$requirements" ||
    { rm -rf "$venv"; echo "schemathesis: pip install failed" >&2; exit 1; }
  complete || { rm -rf "$venv"; echo "schemathesis: $venv does not report version $version" >&2; exit 1; }
fi

[ -f "$root/dist/server/cli.js" ] || { echo "schemathesis: dist/server/cli.js is missing; run npm run build" >&2; exit 1; }
work=$(mktemp -d)
server_pid=""
cleanup() {
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
checks.negative_data_rejection.expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429", "431", "5xx"]

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

# The stateful phase follows the document's links (each create links to the operations on the object it made, and
# under it, naming it by name) and the Location headers of creates. Its dependency analysis is off: it guesses that
# a path parameter such as {gvc} takes the id of the object a create returned, where every path of this API names
# objects by name.
[phases.stateful.inference]
algorithms = ["location-headers"]
TOML
set +e
(cd "$work" && "$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" --no-color run \
  --checks all \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-25}" \
  --workers 1 \
  --seed "${SCHEMATHESIS_SEED:-20261125}" \
  --generation-database none \
  --request-timeout 35 \
  "$url/openapi.json") >"$work/run.log" 2>&1
status=$?
set -e
# The whole log, for a failure's context or the phases' times: SCHEMATHESIS_LOG=<file>.
[ -z "${SCHEMATHESIS_LOG:-}" ] || cp "$work/run.log" "$SCHEMATHESIS_LOG"
# The report. A failure or error: the failures and errors in full, then Schemathesis' summary. A clean run: one line
# of ours, not Schemathesis' pytest-style "=== … in Ns ===" line, which a CI log reader may take for a test runner's
# summary of zero tests (the README's test command is the project's test summary).
summary=$(grep -E '^=+ .* in [0-9.]+s =+$' "$work/run.log" | tail -n 1)
if [ -z "$summary" ]; then
  tail -n 40 "$work/run.log" >&2
  echo "schemathesis: no summary line (exit $status)" >&2
  exit 1
fi
# Exit 0 and no failure or error in the summary: anything else fails the run.
if [ "$status" -ne 0 ] || grep -qE '[0-9]+ (failures?|errors?)' <<<"$summary"; then
  sed -n '/^=* \(FAILURES\|ERRORS\) =*$/,$p' "$work/run.log"
  grep -q '^=* \(FAILURES\|ERRORS\) =*$' "$work/run.log" || sed -n '/^=* SUMMARY =*$/,$p' "$work/run.log"
  echo "schemathesis $version: FAILED (exit $status): $summary"
  exit 1
fi
cases=$(sed -n -E 's/^ *([0-9]+) generated, ([0-9]+) passed(, ([0-9]+) skipped)?.*$/\1 cases, \2 without a finding, \4 skipped/p' "$work/run.log" | tail -n 1)
operations=$(sed -n -E 's/^ *Tested: ([0-9]+)$/\1/p' "$work/run.log" | tail -n 1)
seconds=$(sed -n -E 's/.* in ([0-9.]+)s =+$/\1/p' <<<"$summary")
warnings=$(grep -E '^ *⚠️' "$work/run.log" | sed -E 's/^ *⚠️ *//' | paste -sd ';' -)
echo "schemathesis $version: no failure, no error; ${operations:-?} operations, ${cases:-? cases}, ${seconds}s, seed ${SCHEMATHESIS_SEED:-20261125}${warnings:+; warnings: $warnings}"
