#!/bin/sh
# The container's entrypoint (Containerfile), run by tini. A container listens on 0.0.0.0 so it can be reached at
# all, and then Parley must know who may call it: `serve` on a non-loopback address without PARLEY_ALLOWED_HOSTS
# (the names clients use: the DNS-rebinding check) and API keys is refused here, loudly, before anything starts
# (docs/security.md, "What a deployment must set"). Any other command (`doctor`, `--version`) runs as given.
set -eu
if [ "${1:-}" = serve ]; then
  case "${PARLEY_HOST:-127.0.0.1}" in
    127.* | localhost | ::1 | '[::1]') ;;
    *)
      missing=''
      [ -n "${PARLEY_ALLOWED_HOSTS:-}" ] || missing='PARLEY_ALLOWED_HOSTS (the host names clients use)'
      if [ -z "${PARLEY_API_KEYS:-}${PARLEY_ADMIN_KEYS:-}" ]; then
        missing="${missing:+$missing and }PARLEY_API_KEYS (or PARLEY_ADMIN_KEYS)"
      fi
      if [ -n "$missing" ]; then
        echo "!!! parley: refusing to listen on ${PARLEY_HOST}, where other machines reach it, without $missing." >&2
        echo "!!! Set them (docs/deployment.md, \"The settings a deployment must set\"), or PARLEY_HOST=127.0.0.1 for a container only its own pod reaches." >&2
        exit 78
      fi
      ;;
  esac
fi
# exec: Parley replaces this shell, so tini's SIGTERM reaches it (it then shuts down within PARLEY_SHUTDOWN_TIMEOUT_MS).
exec node /app/dist/cli.js "$@"
