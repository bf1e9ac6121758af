#!/usr/bin/env bash
# Builds the real Pulumi engine from the Go module proxy — the CLI and the YAML language host, at the versions pinned
# in tools/engine/{cli,yaml}/go.mod (checksums in go.sum) — into a cache reused across runs, and puts the
# dynamic-provider launcher beside them. Idempotent: a complete cache is reused; a missing one is rebuilt.
#   scripts/engine.sh              build if needed, then print the bin directory
#   scripts/engine.sh --print-dir  print the bin directory if it is complete, exit 1 (one line on stderr) if not
# The Node, Python and Go language hosts are not served by the module proxy here (see docs/real-engine.md): programs
# in those languages run through their SDK's Automation API (inline programs), which needs only the CLI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
engine="$root/tools/engine"

# The version a go.mod requires directly (`require M v` or a line of a require block, not `// indirect`).
pinned() { sed -n -E "s#^[[:space:]]*(require[[:space:]]+)?$1 (v[^ ]+)\$#\2#p" "$2" | head -n 1; }
cli_version=$(pinned github.com/pulumi/pulumi/pkg/v3 "$engine/cli/go.mod")
yaml_version=$(pinned github.com/pulumi/pulumi-yaml "$engine/yaml/go.mod")
cache="${CPLN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi}/engine/pulumi-$cli_version-yaml-$yaml_version"
bin="$cache/bin"

complete() {
  [ -x "$bin/pulumi" ] && [ -x "$bin/pulumi-language-yaml" ] && [ -x "$bin/pulumi-resource-pulumi-nodejs" ] &&
    [ "$("$bin/pulumi" version 2>/dev/null)" = "$cli_version" ]
}

if [ "${1:-}" = "--print-dir" ]; then
  complete || { echo "engine: the Pulumi CLI $cli_version is not built; run \`npm run engine\` (needs Go)" >&2; exit 1; }
  echo "$bin"
  exit 0
fi
if complete; then
  echo "$bin"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  echo "engine: building the Pulumi CLI $cli_version needs Go (1.26 or later) and the Go module proxy" >&2
  exit 1
}
echo "engine: building pulumi $cli_version and pulumi-language-yaml $yaml_version into $bin (minutes when cold)" >&2
mkdir -p "$cache"
staging=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$staging"' EXIT
# -mod=readonly: exactly the versions and checksums committed in go.mod/go.sum. The version stamp is the one
# Pulumi's own release build sets, so `pulumi version` prints it.
(cd "$engine/cli" && GOFLAGS=-mod=readonly go build -o "$staging/pulumi" \
  -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$cli_version" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi) || { echo "engine: go build of the Pulumi CLI $cli_version failed" >&2; exit 1; }
(cd "$engine/yaml" && GOFLAGS=-mod=readonly go build -o "$staging/pulumi-language-yaml" \
  -ldflags "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=$yaml_version" \
  github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml) || { echo "engine: go build of pulumi-language-yaml $yaml_version failed" >&2; exit 1; }
chmod 0755 "$staging"
install -m 0755 "$engine/pulumi-resource-pulumi-nodejs" "$staging/pulumi-resource-pulumi-nodejs"
rm -rf "$bin"
mv "$staging" "$bin"
trap - EXIT
complete || { echo "engine: $bin/pulumi does not report version $cli_version" >&2; exit 1; }
echo "$bin"
