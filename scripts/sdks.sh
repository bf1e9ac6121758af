#!/usr/bin/env bash
# Generates the Python, Go and Node.js SDKs of the native plugin from schema.json with Pulumi's own code generators
# (tools/engine/gen, pinned to the CLI's pulumi/pkg version), and makes the Python virtual environment the Python
# programs run in (the pinned `pulumi` package from PyPI plus the generated SDK). Everything goes to a cache keyed by
# what it is made from, so a second run reuses it:
#   <cache>/engine/gen-<pkg version>-<hash of tools/engine/gen>/cpln-pulumi-gen    the generator
#   <cache>/sdks/<version>-<hash of schema.json and the generator>/{python,go,nodejs}  the SDKs (TypeScript sources
#                                                                                   for nodejs; release-sdks.sh builds)
#   <cache>/python/pulumi-<pulumi version>-<same key>/                             the venv
#   scripts/sdks.sh               build what is missing, then print `python=<sdk dir>`, `go=<sdk dir>`, `venv=<dir>`,
#                                 `nodejs=<sdk dir>`
#   scripts/sdks.sh --print-dirs  print them if all exist, exit 1 (one line on stderr) if not
#   scripts/sdks.sh dotnet        the .NET SDK alone (C# sources and the .csproj), built on request only: its generator
#                                 is a module of its own (tools/engine/gen-dotnet, pulumi/pkg v3.225.1, the newest the
#                                 proxy serves with codegen/dotnet) that takes minutes to build cold. Prints
#                                 `dotnet=<sdk dir>`, cached as
#   <cache>/engine/gen-dotnet-<pkg version>-<hash of tools/engine/gen-dotnet>/cpln-pulumi-gen-dotnet
#   <cache>/sdks/dotnet-<version>-<hash of schema.json, the generator and docs/logo.png>/dotnet
# One build at a time: a second run waits on <cache>/sdks/.lock (flock) and then finds the cache complete.
# `pulumi package gen-sdk` cannot do this here: it hands generation to pulumi-language-python / pulumi-language-go,
# which the Go module proxy does not serve (docs/languages.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gen_src="$root/tools/engine/gen"
# The PyPI release of the Python SDK: the newest 3.27x the package index here serves (3.274.x is not published there).
python_pulumi=3.272.0
cache_root="${CPLN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi}"
version=$(sed -n -E 's/^  "version": "([^"]+)",$/\1/p' "$root/package.json" | head -n 1)
# shellcheck source=scripts/go-mod.sh
. "$root/scripts/go-mod.sh"
# The pulumi/pkg version a generator's go.mod requires directly.
pkg_of() { pinned github.com/pulumi/pulumi/pkg/v3 "$1"; }
pkg_version=$(pkg_of "$gen_src/go.mod")
# Of the files' contents only: sha256sum's lines also name each file, which made every checkout's path a key of its
# own (each fresh clone regenerated the SDKs and rebuilt the generators).
hash() { sha256sum "$@" | cut -d' ' -f1 | sha256sum | cut -c1-12; }
gen_key=$(hash "$gen_src/main.go" "$gen_src/go.mod" "$gen_src/go.sum")
gen="$cache_root/engine/gen-$pkg_version-$gen_key/cpln-pulumi-gen"
sdk_key="$version-$(printf '%s %s' "$(hash "$root/schema.json")" "$gen_key" | sha256sum | cut -c1-12)"
sdks="$cache_root/sdks/$sdk_key"
venv="$cache_root/python/pulumi-$python_pulumi-$sdk_key"

# Builds the Go generator in directory $1 into $2 (a cold build: minutes) unless it is there.
build_gen() {
  [ -x "$2" ] && return 0
  command -v go >/dev/null 2>&1 || { echo "sdks: building the SDK generator needs Go (1.26 or later)" >&2; exit 1; }
  echo "sdks: building the SDK generator $(basename "$2") ($(basename "$(dirname "$2")")) from the Go module proxy" >&2
  mkdir -p "$(dirname "$2")"
  (cd "$1" && GOFLAGS=-mod=readonly go build -o "$2.partial" .) || { echo "sdks: go build of ${1#"$root"/} failed" >&2; exit 1; }
  mv "$2.partial" "$2"
}
# Waits for any other run's build (flock is Linux's; the release runners run one build per job and need no lock).
lock() {
  command -v flock >/dev/null 2>&1 || return 0
  mkdir -p "$cache_root/sdks"
  exec 9>"$cache_root/sdks/.lock"
  if ! flock -n 9; then
    echo "sdks: another run is generating SDKs (lock $cache_root/sdks/.lock); waiting for it" >&2
    flock 9
  fi
}

if [ "${1:-}" = "dotnet" ]; then
  dotnet_src="$root/tools/engine/gen-dotnet"
  logo="$root/docs/logo.png"
  dotnet_pkg=$(pkg_of "$dotnet_src/go.mod")
  dotnet_key=$(hash "$dotnet_src/main.go" "$dotnet_src/go.mod" "$dotnet_src/go.sum")
  gen_dotnet="$cache_root/engine/gen-dotnet-$dotnet_pkg-$dotnet_key/cpln-pulumi-gen-dotnet"
  dotnet="$cache_root/sdks/dotnet-$version-$(printf '%s %s' "$(hash "$root/schema.json" "$logo")" "$dotnet_key" | sha256sum | cut -c1-12)"
  if [ ! -f "$dotnet/.complete" ]; then
    lock
  fi
  if [ ! -f "$dotnet/.complete" ]; then
    build_gen "$dotnet_src" "$gen_dotnet"
    echo "sdks: generating the .NET SDK of schema.json (version $version) into $dotnet" >&2
    rm -rf "$dotnet"
    "$gen_dotnet" -schema "$root/schema.json" -version "$version" -logo "$logo" -out "$dotnet/dotnet"
    touch "$dotnet/.complete"
  fi
  printf 'dotnet=%s\n' "$dotnet/dotnet"
  exit 0
fi

complete() { [ -f "$sdks/.complete" ] && [ -f "$venv/.complete" ]; }
print() { printf 'python=%s\ngo=%s\nvenv=%s\nnodejs=%s\n' "$sdks/python" "$sdks/go" "$venv" "$sdks/nodejs"; }

if [ "${1:-}" = "--print-dirs" ]; then
  complete || { echo "sdks: the SDKs of schema.json are not generated; run \`npm run sdks\` (needs Go and Python 3)" >&2; exit 1; }
  print
  exit 0
fi
if complete; then
  print
  exit 0
fi
lock
# The run that held the lock may have made exactly these.
if complete; then
  print
  exit 0
fi

build_gen "$gen_src" "$gen"

if [ ! -f "$sdks/.complete" ]; then
  echo "sdks: generating the Python, Go and Node.js SDKs of schema.json (version $version) into $sdks" >&2
  rm -rf "$sdks"
  mkdir -p "$sdks"
  for language in python go nodejs; do
    "$gen" -schema "$root/schema.json" -language "$language" -version "$version" -out "$sdks/$language"
  done
  touch "$sdks/.complete"
fi

if [ ! -f "$venv/.complete" ]; then
  command -v python3 >/dev/null 2>&1 || { echo "sdks: the Python virtual environment needs python3 (3.9 or later)" >&2; exit 1; }
  echo "sdks: making the Python virtual environment (pulumi==$python_pulumi and the generated SDK) in $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pulumi==$python_pulumi" "$sdks/python"
  touch "$venv/.complete"
fi
print
