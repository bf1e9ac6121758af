#!/usr/bin/env bash
# Generates the SDKs of schema.json and packages each as its registry takes it, into DIR:
#   nodejs/cpln-pulumi-cpln-native-<v>.tgz   npm (@cpln-pulumi/cpln-native), compiled with tsc
#   python/pulumi_cpln_native-<v>-py3-none-any.whl   PyPI
#   go/                                      the Go module github.com/cpln-pulumi/cpln-pulumi/sdk/go (the release
#                                            tags it as sdk/go/v<v> so `go get` fetches it)
#   dotnet/CplnPulumi.CplnNative.<v>.nupkg   NuGet, packed by `dotnet pack` from the generated project, which is
#   dotnet/src/                              left beside it (the .csproj and the C# sources)
#   java/                                    the Gradle project of io.github.cplnpulumi:cpln-native, its jar built
#   scripts/release-sdks.sh --out DIR [--languages nodejs,python,go,dotnet,java]
# Node.js, Python and Go come from the pinned generator of scripts/sdks.sh (tools/engine/gen, Pulumi's own codegen
# packages), .NET from its own (`scripts/sdks.sh dotnet`: tools/engine/gen-dotnet, pulumi/pkg's codegen/dotnet at
# the last release that held it); packing it needs the .NET SDK (`dotnet`). Java comes from `pulumi package gen-sdk`,
# which hands it to the CLI's pulumi-language-java: Pulumi's Java generator is in github.com/pulumi/pulumi-java, a
# module the Go proxy refuses, so Java needs a Pulumi CLI release with that plugin (the release workflow installs
# one) and gradle.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=""
languages=nodejs,python,go,dotnet,java
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --languages) languages=$2; shift 2 ;;
    *) echo "release-sdks: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "usage: scripts/release-sdks.sh --out DIR [--languages nodejs,python,go,dotnet,java]" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(node -p 'require(process.argv[1]).version' "$root/package.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wants() { case ",$languages," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

if wants nodejs || wants python || wants go; then
  dirs=$(bash "$root/scripts/sdks.sh")
  dir_of() { printf '%s\n' "$dirs" | sed -n "s/^$1=//p"; }
fi

if wants nodejs; then
  cp -R "$(dir_of nodejs)" "$work/nodejs"
  (
    cd "$work/nodejs"
    # The SDK's own dependencies: it needs the @pulumi/pulumi of its generator's release, newer than this
    # repository's.
    npm install --no-audit --no-fund --ignore-scripts --silent >/dev/null
    tsc=node_modules/.bin/tsc
    "$tsc" -p tsconfig.json
    cp package.json README.md "$root/LICENSE" bin/
    mkdir -p "$out/nodejs"
    (cd bin && npm pack --ignore-scripts --silent --pack-destination "$out/nodejs" >/dev/null)
  )
fi

if wants python; then
  cp -R "$(dir_of python)" "$work/python"
  rm -rf "$work/python"/*.egg-info
  # pyproject.toml names a README.md, which the generator leaves to the packager.
  cp "$(dir_of nodejs)/README.md" "$work/python/README.md"
  python3 -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$out/python" "$work/python"
fi

if wants go; then
  rm -rf "$out/go"
  cp -R "$(dir_of go)" "$out/go"
  cp "$root/LICENSE" "$out/go/LICENSE"
fi

gen_sdk() {
  command -v pulumi >/dev/null 2>&1 || { echo "release-sdks: the $1 SDK needs the pulumi CLI on PATH" >&2; exit 1; }
  pulumi package gen-sdk "$root/schema.json" --language "$1" --version "$version" --out "$work/gen-$1" >&2 ||
    { echo "release-sdks: pulumi package gen-sdk --language $1 failed (needs the CLI's pulumi-language-$1)" >&2; exit 1; }
}

if wants dotnet; then
  dotnet_dir=$(bash "$root/scripts/sdks.sh" dotnet | sed -n 's/^dotnet=//p')
  rm -rf "$out/dotnet"
  mkdir -p "$out/dotnet"
  cp -R "$dotnet_dir" "$out/dotnet/src"
  command -v dotnet >/dev/null 2>&1 || {
    echo "release-sdks: the .NET SDK is generated in $out/dotnet/src; packing CplnPulumi.CplnNative.$version.nupkg needs the .NET SDK (dotnet) on PATH" >&2
    exit 1
  }
  # Packed from a copy, so that no bin/ or obj/ lands in the sources published beside the package.
  cp -R "$dotnet_dir" "$work/dotnet"
  dotnet pack "$work/dotnet" -c Release -p:Version="$version" -o "$out/dotnet"
fi

if wants java; then
  gen_sdk java
  rm -rf "$out/java"
  cp -R "$work/gen-java/java" "$out/java"
  (cd "$out/java" && gradle --no-daemon -Pversion="$version" build)
fi
ls -R "$out" | head -40 >&2
