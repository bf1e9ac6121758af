#!/usr/bin/env bash
# Builds the repository's Dockerfile (cpln-local as a container image) with no container registry and no daemon:
# buildah and podman from Debian's packages, run as root. The Dockerfile's base, `ARG BASE=node:20-bookworm-slim`,
# is replaced by a local image made to match that one from sources reachable without a registry:
#   - Debian bookworm by `debootstrap --variant=minbase` from the Debian mirror (signatures checked against the
#     host's debian-archive-keyring), slimmed as the official debian:bookworm-slim is (debuerreotype's
#     .slimify-excludes/-includes as dpkg path filters), its apt sources the official image's debian.sources;
#   - Node.js from this machine's `nodejs` package (NodeSource's, 20.20.2-1nodesource1 here): the node binary, its
#     headers and corepack, checked unmodified by `dpkg --verify`; npm at the version that package shipped (its
#     package.json checksum in the package's md5sums is checked), from the npm registry, since an `npm i -g npm` on
#     a host replaces the package's copy; yarn 1.22.22 from the npm registry; all laid out under /usr/local as the
#     official image has them, with its `node` user (uid 1000).
# What this machine's network needs of the build is given to its RUN steps as read-only mounts, never kept in a layer:
# an npmrc (at npm's global config path) with `nodedir=/usr/local` (the headers above: node-gyp otherwise downloads
# them from nodejs.org, which is not reachable here) and `cafile=` this machine's CA bundle (its HTTPS goes through a
# proxy whose CA only that bundle holds: without it every npm fetch fails with SELF_SIGNED_CERT_IN_CHAIN).
# The base is kept as a root file system tar under <cache>/image/ keyed by all its inputs (the recipe below, the
# suite, the mirror, the Node.js package's version and the npm/yarn versions); one build at a time (flock on
# <cache>/image/.lock). A missing tar is rebuilt, a missing local image is re-imported from the tar.
#
#   scripts/image.sh [--base]   build the base (when not cached) and then cpln-local:<package.json version>
#                               (--base: only the base); prints the image name last
#   scripts/image.sh --check    run the image with podman and check it: the policies with the admin key (200), none
#                               without it (401), and a /data volume keeping what was created across a new container
# Env: CPLN_TOKEN (the admin key for --check; a random one when unset; passed to podman by name only),
# CPLN_IMAGE_MIRROR (default http://deb.debian.org/debian; e.g. a snapshot.debian.org archive URL to pin a date).
# Needs (apt, as root): buildah, debootstrap; for --check podman, runc, containernetworking-plugins (see docs/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="${CPLN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpln-pulumi}/image"
suite=bookworm
mirror=${CPLN_IMAGE_MIRROR:-http://deb.debian.org/debian}
npm_version=10.8.2
yarn_version=1.22.22
version=$(node -p 'require(process.argv[1]).version' "$root/package.json")
image="localhost/cpln-local:$version"

say() { echo "image: $*" >&2; }
fail() {
  say "$*"
  exit 1
}

# The root file system of the base, into the tar $1 (runs as root; $rootfs is removed by the caller's trap).
build_base() {
  local out=$1 arch node_bin md5
  arch=$(dpkg --print-architecture)
  debootstrap --variant=minbase --arch="$arch" "$suite" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
    tail -n 20 "$rootfs.log" >&2
    fail "debootstrap $suite from $mirror failed (the end of its log above)"
  }
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # Slim as debian:<suite>-slim: documentation, manuals and translations are neither kept nor installed later.
  {
    printf 'path-exclude %s\n' '/usr/share/doc/*' '/usr/share/groff/*' '/usr/share/info/*' '/usr/share/linda/*' \
      '/usr/share/lintian/overrides/*' '/usr/share/locale/*' '/usr/share/man/*'
    printf 'path-include %s\n' '/usr/share/doc/*/copyright' '/usr/share/locale/locale.alias'
  } >"$rootfs/etc/dpkg/dpkg.cfg.d/docker"
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
  rm -rf "${rootfs:?}"/usr/share/{groff,info,linda,man}/* "${rootfs:?}"/usr/share/lintian/overrides/*
  printf 'Acquire::Languages "none";\n' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
  printf 'Apt::AutoRemove::SuggestsImportant "false";\n' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"

  # Node.js: the files of this machine's nodejs package, where the official image has them.
  node_bin=$(dpkg -L nodejs | grep -x /usr/bin/node) || fail "the nodejs package has no /usr/bin/node"
  if dpkg --verify nodejs | grep -vE ' /usr/lib/node_modules/npm/' | grep -q .; then
    fail "files of the nodejs package were changed on this machine: $(dpkg --verify nodejs | grep -v /npm/ | head -3)"
  fi
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules"
  cp -a "$node_bin" "$rootfs/usr/local/bin/node"
  cp -a /usr/include/node "$rootfs/usr/local/include/node"
  cp -a /usr/lib/node_modules/corepack "$rootfs/usr/local/lib/node_modules/corepack"
  (cd "$rootfs.pack" && npm pack --silent "npm@$npm_version" "yarn@$yarn_version" >/dev/null)
  md5=$(sed -n 's#^\([0-9a-f]*\)  usr/lib/node_modules/npm/package.json$#\1#p' /var/lib/dpkg/info/nodejs.md5sums)
  [ "$(tar -xzOf "$rootfs.pack/npm-$npm_version.tgz" package/package.json | md5sum | cut -d' ' -f1)" = "$md5" ] ||
    fail "npm $npm_version is not the npm the nodejs package $(dpkg-query -W -f='${Version}' nodejs) shipped"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm" "$rootfs/opt/yarn-v$yarn_version"
  tar -xzf "$rootfs.pack/npm-$npm_version.tgz" --strip-components=1 --no-same-owner \
    -C "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$rootfs.pack/yarn-$yarn_version.tgz" --strip-components=1 --no-same-owner \
    -C "$rootfs/opt/yarn-v$yarn_version"
  ln -s node "$rootfs/usr/local/bin/nodejs"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  ln -s ../lib/node_modules/corepack/dist/corepack.js "$rootfs/usr/local/bin/corepack"
  ln -s "/opt/yarn-v$yarn_version/bin/yarn" "$rootfs/usr/local/bin/yarn"
  ln -s "/opt/yarn-v$yarn_version/bin/yarnpkg" "$rootfs/usr/local/bin/yarnpkg"
  # In the new root with none of this machine's environment (e.g. NODE_EXTRA_CA_CERTS naming a file it lacks).
  local in_root=(chroot "$rootfs" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  "${in_root[@]}" groupadd --gid 1000 node
  "${in_root[@]}" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  [ "$("${in_root[@]}" node -v)" = "$(node_version)" ] || fail "node does not run in the base"
  [ "$("${in_root[@]}" npm -v)" = "$npm_version" ] || fail "npm does not run in the base"

  rm -rf "${rootfs:?}"/var/lib/apt/lists/* "${rootfs:?}"/var/cache/apt/*.bin \
    "${rootfs:?}"/var/cache/apt/archives/*.deb "${rootfs:?}"/var/log/* "${rootfs:?}"/tmp/* "${rootfs:?}"/root/.npm
  rm -rf "${rootfs:?}"/dev/* # device nodes debootstrap made: a container runtime provides /dev
  tar --numeric-owner --xattrs -C "$rootfs" -cf "$out" .
}

# A failed debootstrap may leave /proc and /sys mounted in the new root: those are unmounted first, and rm stays on
# the new root's file system whatever is left.
# shellcheck disable=SC2317 # called by the EXIT trap
remove_rootfs() {
  findmnt -rn -o TARGET | grep -F "$rootfs/" | sort -r | xargs -r umount -l || true
  rm -rf --one-file-system "$rootfs" "$rootfs.pack" "$rootfs.tar" "$rootfs.log"
}

# The Node.js version of the nodejs package's binary, e.g. v20.20.2.
node_version() { "$(dpkg -L nodejs | grep -x /usr/bin/node)" -v; }

base_key() {
  {
    declare -f build_base
    printf '%s\n' "$suite" "$mirror" "$(dpkg-query -W -f='${Version}' nodejs)" "$npm_version" "$yarn_version"
  } | sha256sum | cut -c1-12
}

# Builds the base tar when missing and imports it as a local image when missing; prints the image's name.
base() {
  local node_major base_major key tar name ctr
  [ "$(id -u)" = 0 ] || fail "building the base needs root (debootstrap, chroot, buildah's root storage)"
  for tool in debootstrap buildah flock; do
    command -v "$tool" >/dev/null || fail "needs $tool (apt-get install $tool)"
  done
  node_major=$(node_version | sed -E 's/^v([0-9]+)\..*/\1/')
  base_major=$(sed -n -E 's/^ARG BASE=node:([0-9]+)-.*/\1/p' "$root/Dockerfile")
  [ "$node_major" = "$base_major" ] ||
    fail "the nodejs package is Node $node_major; the Dockerfile's base is node:$base_major"
  key=$(base_key)
  tar="$cache/base-$suite-node$(node_version | tr -d v)-$key.tar"
  name="localhost/cpln-local-base:node$(node_version | tr -d v)-$suite-$key"
  mkdir -p "$cache"
  exec 8>"$cache/.lock"
  flock -n 8 || {
    say "another build of the base holds $cache/.lock; waiting for it"
    flock 8
  }
  if [ ! -f "$tar" ]; then
    say "building the base: debootstrap $suite from $mirror, Node.js $(node_version) (minutes)"
    rootfs=$(mktemp -d "$cache/.rootfs.XXXXXX")
    trap remove_rootfs EXIT
    mkdir "$rootfs.pack"
    build_base "$rootfs.tar"
    mv "$rootfs.tar" "$tar"
    remove_rootfs
    trap - EXIT
  fi
  if ! buildah inspect --type image "$name" >/dev/null 2>&1; then
    say "importing $tar as $name"
    ctr=$(buildah from scratch)
    trap 'buildah rm "$ctr" >/dev/null 2>&1' EXIT
    buildah add --quiet "$ctr" "$tar" / >/dev/null
    buildah config --os linux --arch "$(dpkg --print-architecture)" --user root --workingdir / \
      --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      --env "NODE_VERSION=$(node_version | tr -d v)" --env "YARN_VERSION=$yarn_version" --cmd node "$ctr"
    buildah commit --quiet --rm "$ctr" "$name" >/dev/null
    trap - EXIT
  fi
  flock -u 8
  echo "$name"
}

build() {
  local base_image ca
  base_image=$(base)
  ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
  [ -f "$ca" ] || fail "no CA bundle at $ca (set NODE_EXTRA_CA_CERTS to the one this machine's HTTPS needs)"
  npmrc=$(mktemp) # global: the EXIT trap runs after this function has returned
  trap 'rm -f "$npmrc"' EXIT
  printf 'nodedir=/usr/local\ncafile=/run/cpln-image/ca.pem\n' >"$npmrc"
  say "building $image from the Dockerfile on $base_image"
  nice -n 10 buildah bud --isolation chroot --pull=never --build-arg "BASE=$base_image" -t "$image" \
    -v "$npmrc:/usr/local/etc/npmrc:ro" -v "$ca:/run/cpln-image/ca.pem:ro" -f "$root/Dockerfile" "$root" >&2
  echo "$image"
}

case "${1:-}" in
  "") build ;;
  --base) base ;;
  --check) exec bash "$root/scripts/image-check.sh" "$image" ;;
  *) fail "usage: scripts/image.sh [--base | --check]" ;;
esac
