/* global fetch, AbortSignal */
// The container's health and readiness probe (Containerfile HEALTHCHECK, deploy/compose.yaml, deploy/k8s):
//   node /app/deploy/probe.mjs /health      exit 0 when Parley answers 2xx, else 1
//   node /app/deploy/probe.mjs /ready       the same with the first PARLEY_ADMIN_KEYS / PARLEY_API_KEYS key
// Asked on 127.0.0.1 inside the container: a loopback Host always passes the Host check, and /ready needs a key
// when auth is on, which an HTTP probe of an orchestrator cannot take from a secret.
const path = process.argv[2] ?? '/health';
const key = [process.env.PARLEY_ADMIN_KEYS, process.env.PARLEY_API_KEYS]
  .flatMap((list) => (list ?? '').split(','))
  .map((k) => k.trim())
  .find(Boolean);
const port = process.env.PARLEY_PORT || '8787';
try {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
    signal: AbortSignal.timeout(2500),
  });
  if (!response.ok) console.error(`${path}: ${response.status} ${await response.text()}`);
  process.exit(response.ok ? 0 : 1);
} catch (err) {
  console.error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
