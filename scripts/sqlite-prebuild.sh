#!/usr/bin/env bash
# Keeps the better-sqlite3 binary a clean install compiled, so that the next clean install on this machine takes it
# instead of compiling SQLite again (about 80 s of one core). better-sqlite3's install script runs prebuild-install
# first, which downloads a binary from GitHub (unreachable from CI here) unless its `local-prebuilds` directory holds
# one by the release's file name; it loads a binary before it keeps it (a broken one falls back to compiling).
# prebuild-install reads that setting with rc (https://github.com/dominictarr/rc) from a `.prebuild-installrc` in
# the package's directory or one above it: the checkout's root. Not from the environment: rc's variable,
# `prebuild-install_local-prebuilds`, is no shell name, and npm runs install scripts through sh, which drops it; an
# `npm_config_*` one makes npm 11 warn on every install.
#
#   scripts/sqlite-prebuild.sh use [dir]   writes dir/.prebuild-installrc (default: the checkout's root), naming the
#                                          cache's prebuilds directory
#   scripts/sqlite-prebuild.sh keep        after the install: packs its compiled binary there, once per version and
#                                          ABI, and removes the checkout's .prebuild-installrc
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="${CPLN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi}/prebuilds"
case "${1:-}" in
  use)
    mkdir -p "$dir"
    printf 'local-prebuilds=%s\n' "$dir" >"${2:-$root}/.prebuild-installrc"
    ;;
  keep)
    rm -f "$root/.prebuild-installrc"
    package="$root/node_modules/better-sqlite3"
    binary="$package/build/Release/better_sqlite3.node"
    [ -f "$binary" ] || { echo "sqlite-prebuild: no $binary to keep (is better-sqlite3 installed?)" >&2; exit 1; }
    # The file name prebuild-install looks for: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz
    # (prebuild-install's util.js; libc is empty on glibc Linux).
    name=$(cd "$package" && node -p '`better-sqlite3-v${require("./package.json").version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`')
    [ -f "$dir/$name" ] && exit 0
    mkdir -p "$dir"
    # Written aside and renamed into place: a reader sees a whole archive or none, and two installs at once both
    # write a complete one.
    partial=$(mktemp "$dir/.$name.XXXXXX")
    trap 'rm -f "$partial"' EXIT
    tar -czf "$partial" -C "$package" build/Release/better_sqlite3.node
    mv "$partial" "$dir/$name"
    echo "sqlite-prebuild: kept $dir/$name for the next clean install"
    ;;
  *) echo "usage: $0 use [dir] | keep" >&2; exit 2 ;;
esac
