#!/usr/bin/env bash
# Builds the cpln-native plugin as one executable with no runtime to install: the provider bundled into one CommonJS
# file (esbuild, from the TypeScript sources), made a Node.js single executable application (the running `node`
# with the bundle injected by postject; package.json and schema.json are assets of the binary), then archived as
# Pulumi expects — `pulumi-resource-cpln-native-v<version>-<os>-<arch>.tar.gz`, the binary at the root — with a
# SHA-256 checksums file over every archive of that version in the output directory.
#   scripts/plugin-binary.sh [--out DIR]    (default .tmp/plugin/) prints the archive's path
# Builds for the machine it runs on (a SEA is the host's own node binary; the release workflow runs this on one
# runner per os/arch). The result is cached under ~/.cache/cpln-pulumi/plugin/v<version>/, keyed by a hash of
# everything that goes into it, behind a lock so that concurrent test files build it once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.tmp/plugin"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    *) echo "plugin-binary: unknown argument $1 (usage: scripts/plugin-binary.sh [--out DIR])" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

plugin=pulumi-resource-cpln-native
version=$(node -p 'require(process.argv[1]).version' "$root/package.json")
os=$(node -p '({ linux: "linux", darwin: "darwin", win32: "windows" })[process.platform] || process.platform')
arch=$(node -p '({ x64: "amd64", arm64: "arm64" })[process.arch] || process.arch')
exe=$plugin
[ "$os" = windows ] && exe=$plugin.exe
archive_name="$plugin-v$version-$os-$arch.tar.gz"

# LIEF (inside postject) warns about node's unnamed note sections on every ELF injection; nothing is wrong with them.
quiet() { grep -v "Can't find string offset for section name" || true; }
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }

cache="${CPLN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi}/plugin/v$version"
mkdir -p "$cache"
# One build at a time per version (test files run two at a time and may both ask for it); flock is Linux's — the
# release runners for macOS and Windows build one archive per job and need no lock.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.lock"
  flock 9
fi

staging=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$staging"' EXIT
# The bundle: every dependency inlined (grpc-js, the Pulumi protobuf stubs, zod, undici), node: built-ins left out.
"$root/node_modules/.bin/esbuild" "$root/provider/native/main.ts" --bundle --platform=node --target=node20 \
  --format=cjs --log-level=warning --outfile="$staging/plugin.cjs"
cp "$root/package.json" "$staging/package.json"
cp "$root/schema.json" "$staging/schema.json"
# Documents shipped beside the binary, as Pulumi's own provider archives do.
docs=()
for doc in LICENSE README.md; do
  [ -f "$root/$doc" ] && cp "$root/$doc" "$staging/$doc" && docs+=("$doc")
done
# disableExperimentalSEAWarning: the engine shows a plugin's stderr to the user. useCodeCache: V8's compiled code of
# the bundle is in the blob, so a start skips compiling 4 MB of JavaScript.
cat >"$staging/sea-config.json" <<EOF
{
  "main": "plugin.cjs",
  "output": "plugin.blob",
  "disableExperimentalSEAWarning": true,
  "useCodeCache": true,
  "assets": { "package.json": "package.json", "schema.json": "schema.json" }
}
EOF
postject_version=$(node -p 'require(process.argv[1]).version' "$root/node_modules/postject/package.json")
key=$(
  cd "$staging" &&
    { sha256 plugin.cjs package.json schema.json sea-config.json "${docs[@]}"; node --version; echo "postject $postject_version"; } |
    sha256 | cut -c1-16
)
target="$cache/$os-$arch-$key"

if [ ! -f "$target/$archive_name" ]; then
  (cd "$staging" && node --experimental-sea-config sea-config.json >sea.log 2>&1) || {
    cat "$staging/sea.log" >&2
    exit 1
  }
  mkdir "$staging/archive"
  binary="$staging/archive/$exe"
  cp "$(node -p process.execPath)" "$binary"
  chmod 0755 "$binary"
  inject=("$root/node_modules/.bin/postject" "$binary" NODE_SEA_BLOB "$staging/plugin.blob"
    --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2)
  if [ "$os" = darwin ]; then
    # macOS refuses a binary whose signature no longer matches: drop node's, inject, sign ad hoc.
    codesign --remove-signature "$binary"
    "${inject[@]}" --macho-segment-name NODE_SEA 2> >(quiet >&2) >/dev/null
    codesign --sign - "$binary"
  else
    "${inject[@]}" 2> >(quiet >&2) >/dev/null
  fi
  for doc in "${docs[@]}"; do cp "$staging/$doc" "$staging/archive/$doc"; done
  (cd "$staging/archive" && tar -czf "$staging/$archive_name" "$exe" "${docs[@]}")
  rm -rf "$target"
  mkdir "$staging/result"
  mv "$staging/$archive_name" "$staging/result/"
  mv "$staging/result" "$target"
fi

cp "$target/$archive_name" "$out/$archive_name"
# Every archive of this version in the output directory (the release job gathers all os/arch archives in one).
bash "$root/scripts/release-checksums.sh" "$out" "$version" >/dev/null
echo "$out/$archive_name"
