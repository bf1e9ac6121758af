#!/usr/bin/env bash
# Builds the real Pulumi engine from the Go module proxy into a cache reused across runs, one directory to put on PATH:
#   pulumi                          the CLI                  tools/engine/cli/go.mod (github.com/pulumi/pulumi/pkg/v3)
#   pulumi-language-yaml            the YAML language host   tools/engine/yaml/go.mod (github.com/pulumi/pulumi-yaml)
#   pulumi-language-{nodejs,python,go}-<v>  the Node.js, Python and Go language hosts, tools/engine/hosts/<language>/:
#                                   the newest github.com/pulumi/pulumi/sdk/v3 that still holds each as a package
#                                   (later ones moved them into modules the proxy does not serve; docs/real-engine.md)
#   pulumi-language-{nodejs,python,go}  one front for the three (tools/engine/langhost, ours): it starts the old host
#                                   with Pulumi.yaml's runtime options and generates programs (`pulumi import --out`)
#   pulumi-language-python-exec, pulumi-resource-pulumi-nodejs   the launchers the Pulumi distribution ships beside
#                                   them, written by this project (tools/engine/)
# Each Go binary is cached by its version under <cache>/engine/build/ (checksums in each go.sum; -mod=readonly), and
# the bin directory is keyed by all versions and the launchers' contents. One build at a time: a second run waits on
# <cache>/engine/.lock (flock) and then finds the cache complete.
#   scripts/engine.sh              build what is missing (a progress line per step), then print the bin directory
#   scripts/engine.sh --print-dir  print the bin directory if it is complete, exit 1 (one line on stderr) if not
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
engine="$root/tools/engine"

# shellcheck source=scripts/go-mod.sh
. "$root/scripts/go-mod.sh"
cli_version=$(pinned github.com/pulumi/pulumi/pkg/v3 "$engine/cli/go.mod")
yaml_version=$(pinned github.com/pulumi/pulumi-yaml "$engine/yaml/go.mod")
host_version() { pinned github.com/pulumi/pulumi/sdk/v3 "$engine/hosts/$1/go.mod"; }
host_package() { sed -n -E 's#^import _ "(.*)"$#\1#p' "$engine/hosts/$1/tools.go"; }
languages="nodejs python go"

cache_root="${CPLN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi}/engine"
launchers="pulumi-language-python-exec pulumi-resource-pulumi-nodejs"
# The front is this project's code: its version is the hash of its sources.
front_version=$(cd "$engine/langhost" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-12)
key="$cli_version-yaml-$yaml_version"
binaries="pulumi pulumi-language-yaml"
for language in $languages; do
  key="$key-$language-$(host_version "$language")"
  binaries="$binaries pulumi-language-$language pulumi-language-$language-$(host_version "$language")"
done
key="$key-$(printf '%s' "$front_version" | cat - "$engine/pulumi-language-python-exec" "$engine/pulumi-resource-pulumi-nodejs" | sha256sum | cut -c1-8)"
bin="$cache_root/pulumi-$key/bin"

complete() {
  local name
  for name in $binaries $launchers; do [ -x "$bin/$name" ] || return 1; done
  [ "$(PULUMI_SKIP_UPDATE_CHECK=true "$bin/pulumi" version 2>/dev/null)" = "$cli_version" ]
}

if [ "${1:-}" = "--print-dir" ]; then
  complete || { echo "engine: the Pulumi CLI $cli_version and its language hosts are not built; run \`npm run engine\` (needs Go)" >&2; exit 1; }
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
command -v flock >/dev/null 2>&1 || { echo "engine: needs flock(1) (util-linux) so that two builds never run at once" >&2; exit 1; }
mkdir -p "$cache_root/build"
exec 9>"$cache_root/.lock"
if ! flock -n 9; then
  echo "engine: another build of the engine is running (lock $cache_root/.lock); waiting for it" >&2
  flock 9
fi
# The build that held the lock may have made exactly this one.
if complete; then
  echo "$bin"
  exit 0
fi

started=$SECONDS
step=0
steps=6
progress() {
  step=$((step + 1))
  echo "engine: [$step/$steps, $((SECONDS - started)) s] $*" >&2
}
# build <cached file> <module dir> <package> <version variable> <version>: go build into the cache unless it is there.
# -mod=readonly: exactly the versions and checksums committed in go.mod/go.sum. The version stamp is the one Pulumi's
# own release build sets, so `pulumi version` and the plugins' GetPluginInfo report it.
build() {
  local out=$1 dir=$2 package=$3 variable=$4 version=$5 name
  name=$(basename "$out")
  if [ -x "$out" ]; then
    progress "$name $version: cached"
    return 0
  fi
  progress "$name $version: go build (minutes when the Go caches are cold)"
  mkdir -p "$(dirname "$out")"
  (cd "$dir" && GOFLAGS=-mod=readonly go build -o "$out.partial" -ldflags "-X $variable=$version" "$package") || {
    rm -f "$out.partial"
    echo "engine: go build of $name $version failed" >&2
    exit 1
  }
  mv "$out.partial" "$out"
}

sdk_version_var=github.com/pulumi/pulumi/sdk/v3/go/common/version.Version
build "$cache_root/build/pulumi-$cli_version/pulumi" "$engine/cli" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$sdk_version_var" "$cli_version"
build "$cache_root/build/language-yaml-$yaml_version/pulumi-language-yaml" "$engine/yaml" \
  github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml github.com/pulumi/pulumi-yaml/pkg/version.Version "$yaml_version"
for language in $languages; do
  version=$(host_version "$language")
  build "$cache_root/build/language-$language-$version/pulumi-language-$language" "$engine/hosts/$language" \
    "$(host_package "$language")" "$sdk_version_var" "$version"
done
build "$cache_root/build/langhost-$front_version/langhost" "$engine/langhost" . main.version "$front_version"

staging=$(mktemp -d "$cache_root/.bin.XXXXXX")
trap 'rm -rf "$staging"' EXIT
cp "$cache_root/build/pulumi-$cli_version/pulumi" "$cache_root/build/language-yaml-$yaml_version/pulumi-language-yaml" "$staging/"
for language in $languages; do
  version=$(host_version "$language")
  cp "$cache_root/build/language-$language-$version/pulumi-language-$language" "$staging/pulumi-language-$language-$version"
  cp "$cache_root/build/langhost-$front_version/langhost" "$staging/pulumi-language-$language"
done
for launcher in $launchers; do install -m 0755 "$engine/$launcher" "$staging/$launcher"; done
chmod 0755 "$staging"
rm -rf "$(dirname "$bin")"
mkdir -p "$(dirname "$bin")"
mv "$staging" "$bin"
trap - EXIT
complete || { echo "engine: $bin/pulumi does not report version $cli_version" >&2; exit 1; }
echo "engine: done in $((SECONDS - started)) s" >&2
echo "$bin"
