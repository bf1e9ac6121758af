#!/usr/bin/env bash
# Prints the path of moto's server command (moto[server], pinned), installing it on first use into a venv cached
# under ~/.cache/cpln-pulumi/moto-<version>/. For bench/moto.ts only (the side-by-side benchmark); nothing else uses it.
# Exit 2 when python3 is absent (the benchmark then skips with one line).
set -euo pipefail
MOTO_VERSION=5.2.5
dir="${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi/moto-${MOTO_VERSION}"
if [ -x "$dir/bin/moto_server" ]; then
  echo "$dir/bin/moto_server"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found" >&2
  exit 2
fi
rm -rf "$dir.tmp"
python3 -m venv "$dir.tmp"
"$dir.tmp/bin/pip" install --quiet --disable-pip-version-check "moto[server]==${MOTO_VERSION}" >&2
rm -rf "$dir"
mv "$dir.tmp" "$dir"
# The venv's scripts name their interpreter by the path they were created at.
sed -i "1s|$dir.tmp|$dir|" "$dir/bin/moto_server" "$dir/bin/pip"
sed -i "s|$dir.tmp|$dir|g" "$dir/bin/activate"
echo "$dir/bin/moto_server"
