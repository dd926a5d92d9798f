#!/usr/bin/env bash
# Builds the images the deploy tests run (test/deploy/) and reuses them by tag while their inputs are unchanged:
#   localhost/parley:latest                     the Containerfile, on the local Node base
#   localhost/parley-{postgres,redis,balancer}  deploy/images/*, on the local Debian base
# Each image is also tagged with the hash of the files it was built from and its base (`:inputs-<hash>`): a
# change to any of them rebuilds it, nothing else does (and the rebuild reuses podman's cache for the steps
# before the first change: the npm install is redone only when package.json or package-lock.json changed). The base images come first (deploy/ci/build-base.sh). npm reaches its
# registry with this machine's npm settings and CA bundle, lent to the build as secrets (never in the image).
# Several callers at once (two test files) build once: a lock serializes them.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/ci/containers.conf}
exec 9>/tmp/parley-build-images.lock
flock 9
deploy/ci/build-base.sh

# The files an image is built from, and the base image it is built on.
inputs_hash() {
  local base=$1
  shift
  { podman image inspect --format '{{.Id}}' "$base"; find "$@" -type f -print0 | sort -z | xargs -0 sha256sum; } |
    sha256sum | cut -c1-16
}

# build TAG BASE "INPUT…" BUILD-ARGS…
build() {
  local tag=$1 base=$2 hash started
  hash=$(inputs_hash "$base" $3)
  shift 3
  local stamp="${tag%:*}:inputs-$hash"
  if podman image exists "$stamp" && [ "$(podman image inspect --format '{{.Id}}' "$stamp")" = \
    "$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null)" ]; then
    echo "image $tag: up to date"
    return 0
  fi
  started=$(date +%s)
  # Older stamps of this image go (a label would do, but a build label invalidates podman's step cache).
  podman images --format '{{.Repository}}:{{.Tag}}' "${tag%:*}" | grep ':inputs-' | xargs -r -I{} podman untag {} {} 2>/dev/null || true
  podman build --quiet --format docker --network host -t "$tag" -t "$stamp" "$@" \
    >/tmp/parley-build-image.log 2>&1 ||
    { tail -40 /tmp/parley-build-image.log; echo "build of $tag failed" >&2; exit 1; }
  echo "image $tag: built in $(( $(date +%s) - started )) s," \
    "$(podman image inspect --format '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}')"
}

secrets=()
npmrc=$(npm config get userconfig 2>/dev/null || true)
[ -f "$npmrc" ] && secrets+=(--secret "id=npmrc,src=$npmrc")
# The CA bundle: npm's own setting, else the one Node and the system are told to trust. npm's setting can be
# missing where the host's is not: Node 24 from .cache/node24 (.ci/run) runs npm with its own prefix, whose global
# npmrc (where this machine sets cafile) does not exist, and the host npm still trusts the registry through
# NODE_EXTRA_CA_CERTS. The build's npm runs on the image's Node and sees neither unless it is lent here.
cafile=$(npm config get cafile 2>/dev/null || true)
for candidate in "$cafile" "${NODE_EXTRA_CA_CERTS:-}" "${SSL_CERT_FILE:-}"; do
  if [ -n "$candidate" ] && [ "$candidate" != null ] && [ -f "$candidate" ]; then
    secrets+=(--secret "id=cacert,src=$candidate")
    break
  fi
done
build localhost/parley:latest localhost/node:24-bookworm-slim \
  "Containerfile package.json package-lock.json tsconfig.json mcp_config.json prices.json bin src console specialists deploy/prune-runtime.mjs deploy/entrypoint.sh deploy/probe.mjs" \
  --build-arg BASE=localhost/node:24-bookworm-slim "${secrets[@]}" .
for image in postgres redis balancer; do
  build "localhost/parley-$image:latest" localhost/debian:bookworm "deploy/images/$image" --build-arg BASE=localhost/debian:bookworm "deploy/images/$image"
done
podman image prune -f >/dev/null 2>&1 || true # an image a stopped build still holds stays
