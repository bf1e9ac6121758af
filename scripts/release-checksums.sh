#!/usr/bin/env bash
# Writes pulumi-resource-cpln-native-v<version>-checksums.txt in DIR: the SHA-256 of every plugin archive of that
# version there (sha256sum's format, one `<hash>  <file>` line each, sorted by file name). plugin-binary.sh calls it
# for the archive it builds; the release job calls it once over the archives of every os/arch.
#   scripts/release-checksums.sh <dir> <version>
set -euo pipefail
dir=${1:?usage: scripts/release-checksums.sh <dir> <version>}
version=${2:?usage: scripts/release-checksums.sh <dir> <version>}
plugin=pulumi-resource-cpln-native
cd "$dir"
shopt -s nullglob
archives=("$plugin-v$version"-*.tar.gz)
[ ${#archives[@]} -gt 0 ] || { echo "release-checksums: no $plugin-v$version-*.tar.gz in $dir" >&2; exit 1; }
if command -v sha256sum >/dev/null 2>&1; then sum=(sha256sum); else sum=(shasum -a 256); fi
"${sum[@]}" "${archives[@]}" | LC_ALL=C sort -k2 >"$plugin-v$version-checksums.txt"
echo "$dir/$plugin-v$version-checksums.txt"
