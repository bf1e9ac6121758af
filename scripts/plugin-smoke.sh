#!/usr/bin/env bash
# Starts the plugin binary from a release archive as the engine does, with an empty PATH (no node, nothing else), and
# checks that it prints its port on the first line of stdout within 30 s. Used by the release workflow on every
# os/arch runner; test/native/binary.test.ts does the same and drives the plugin over gRPC.
#   scripts/plugin-smoke.sh <archive>
set -euo pipefail
archive=${1:?usage: scripts/plugin-smoke.sh <archive>}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
tar -xzf "$archive" -C "$dir"
binary="$dir/pulumi-resource-cpln-native"
[ -f "$binary" ] || binary="$binary.exe"
[ -f "$binary" ] || { echo "plugin-smoke: no pulumi-resource-cpln-native(.exe) at the root of $archive" >&2; exit 1; }
mkdir "$dir/empty"
PATH="$dir/empty" "$binary" 127.0.0.1:1 >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
for _ in $(seq 1 300); do
  if [ -s "$dir/stdout" ]; then
    port=$(head -n 1 "$dir/stdout")
    if printf '%s' "$port" | grep -Eq '^[0-9]+$'; then
      echo "plugin-smoke: $(basename "$archive") listens on port $port"
      exit 0
    fi
    echo "plugin-smoke: the first stdout line is \"$port\", not a port" >&2
    exit 1
  fi
  kill -0 "$pid" 2>/dev/null || { echo "plugin-smoke: the plugin exited: $(cat "$dir/stderr")" >&2; exit 1; }
  sleep 0.1
done
echo "plugin-smoke: no port within 30 s" >&2
exit 1
