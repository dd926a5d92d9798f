/**
 * The Kubernetes manifests (issue 35, deploy/k8s/, docs/deployment.md) under `podman kube play`: the files
 * kustomization.yaml lists, with Postgres and Redis from deploy/k8s/dev/backing.yaml, come up as two Parley pods
 * that answer /ready (database and Redis ok) through the Deployment's own readiness probe command.
 * What podman 4.3 (Debian 12) lacks is bridged here and said in the output: a Secret document is made a podman
 * secret (kube play reads secretKeyRef from those), and `fieldRef: status.podIP` (PARLEY_REPLICA_URL) is dropped.
 * The ConfigMap holding the shipped configuration is checked against the repository first (no podman needed).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  IMAGES,
  IMAGES_TIMEOUT_MS,
  ensureImages,
  podman,
  podmanMissing,
  logsOf,
  run,
  waitFor,
} from '../support/podman.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const K8S = join(ROOT, 'deploy/k8s');
const missing = podmanMissing();
if (missing) console.log(`k8s.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 240_000 });

type Doc = { kind: string; metadata: { name: string }; [key: string]: unknown };
const docsOf = (file: string) => parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as Doc);
const KEY = 'k8s-test-key';
const tag = `${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'parley-k8s-'));
const network = `parley-kube-${tag}`;
const secrets: string[] = [];
const played: string[] = [];

/** A Secret document as podman 4.3's kube play reads it: a podman secret holding { key: base64(value) }. */
async function createSecret(doc: Doc, values: Record<string, string> = {}) {
  const data = { ...(doc.stringData as Record<string, string>), ...values };
  const file = join(dir, `${doc.metadata.name}.json`);
  writeFileSync(
    file,
    JSON.stringify(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]))),
  );
  await run('podman', ['secret', 'rm', doc.metadata.name]);
  await podman('secret', 'create', doc.metadata.name, file);
  secrets.push(doc.metadata.name);
}

/**
 * Plays the documents with podman. Its kube play publishes a containerPort on the same port of the host (a
 * hostPort of its own): the two replicas would both take 8787 there, so the test drops the ports (nothing here
 * goes through them; the Service is not played either).
 */
async function play(name: string, docs: Doc[]) {
  for (const doc of docs) {
    const containers = (doc as { spec?: { template?: { spec?: { containers?: { ports?: unknown }[] } } } }).spec
      ?.template?.spec?.containers;
    for (const c of containers ?? []) delete c.ports;
  }
  const file = join(dir, name);
  writeFileSync(file, docs.map((d) => stringify(d)).join('---\n'));
  played.push(file);
  await podman('kube', 'play', '--network', network, file);
}

const ipOf = async (container: string) =>
  podman('inspect', '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', container);

async function readyBody(container: string): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const script = `fetch('http://127.0.0.1:8787/ready',{headers:{authorization:'Bearer ${KEY}'}}).then(r=>r.text()).then(t=>console.log(t))`;
  return JSON.parse(await podman('exec', container, 'node', '-e', script)) as never;
}

describe('deploy/k8s/configmap.yaml', () => {
  it('holds the shipped mcp_config.json, prices.json and specialists (node deploy/k8s/configmap.mjs --check)', () => {
    const check = spawnSync(process.execPath, [join(K8S, 'configmap.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});

describe.skipIf(missing !== undefined)('the Kubernetes manifests under podman kube play', () => {
  beforeAll(async () => {
    await ensureImages();
    await podman('network', 'create', network);
  }, IMAGES_TIMEOUT_MS);
  afterAll(async () => {
    for (const file of played.reverse()) await run('podman', ['kube', 'down', file]);
    for (const name of secrets) await run('podman', ['secret', 'rm', name]);
    // kube play makes a volume of each claim and ConfigMap; kube down leaves them.
    await run('podman', ['volume', 'rm', '-f', 'parley-workspace', 'parley-files', 'parley-specialists']);
    await run('podman', ['network', 'rm', '-f', network]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('two replicas on Postgres and Redis answer /ready', async () => {
    const backing = docsOf(join(K8S, 'dev/backing.yaml'));
    for (const doc of backing.filter((d) => d.kind === 'Secret')) await createSecret(doc);
    await play(
      'backing.yaml',
      backing.filter((d) => d.kind !== 'Secret'),
    );
    const postgres = 'parley-postgres-pod-0-postgres';
    await waitFor('Postgres', async () => (await run('podman', ['exec', postgres, 'pg_isready', '-q'])).code === 0);
    const [pgIp, redisIp] = await Promise.all([ipOf(postgres), ipOf('parley-redis-pod-0-redis')]);

    const kustomization = docsOf(join(K8S, 'kustomization.yaml'))[0] as unknown as { resources: string[] };
    const docs = kustomization.resources.flatMap((file) => docsOf(join(K8S, file)));
    for (const doc of docs.filter((d) => d.kind === 'Secret')) {
      await createSecret(doc, {
        PARLEY_API_KEYS: KEY,
        PARLEY_DATABASE_URL: `postgres://parley:change-me@${pgIp}:5432/parley`,
        PARLEY_REDIS_URL: `redis://${redisIp}:6379`,
      });
    }
    type Deployment = Doc & {
      spec: {
        replicas: number;
        template: {
          spec: {
            containers: { image: string; env: { name: string }[]; volumeMounts: { name: string }[] }[];
            volumes: { name: string }[];
          };
        };
      };
    };
    const deployment = docs.find((d) => d.kind === 'Deployment') as Deployment;
    expect(deployment.spec.replicas).toBe(2);
    const [container] = deployment.spec.template.spec.containers;
    container!.image = IMAGES.parley;
    container!.env = container!.env.filter((e) => e.name !== 'POD_IP' && e.name !== 'PARLEY_REPLICA_URL');
    console.log('k8s.test.ts: PARLEY_REPLICA_URL (fieldRef status.podIP) dropped: podman 4.3 kube play cannot set it');
    // podman 4.3 gives the pods of one Deployment one volume for an emptyDir (each replica needs its own home):
    // the replicas are played as one-replica Deployments, each its own emptyDir.
    const replicas = Array.from({ length: deployment.spec.replicas }, (_, i) => {
      const one = structuredClone(deployment);
      one.metadata.name = `parley-${i}`;
      one.spec.replicas = 1;
      const home = one.spec.template.spec.volumes.find((v) => v.name === 'home')!;
      home.name = `home-${i}`;
      for (const c of one.spec.template.spec.containers) {
        for (const m of c.volumeMounts) if (m.name === 'home') m.name = home.name;
      }
      return one;
    });
    console.log('k8s.test.ts: the 2 replicas played as two 1-replica Deployments (podman 4.3 shares an emptyDir)');
    await play('parley.yaml', [...docs.filter((d) => d.kind !== 'Secret' && d !== deployment), ...replicas]);

    const containers = replicas.map((d) => `${d.metadata.name}-pod-0-parley`);
    for (const replica of containers) {
      // The Deployment's own readiness probe, as the kubelet runs it.
      const readyMs = await waitFor(
        `${replica} ready`,
        async () => (await run('podman', ['exec', replica, 'node', '/app/deploy/probe.mjs', '/ready'])).code === 0,
        120_000,
      );
      expect(await readyBody(replica)).toMatchObject({ ready: true, checks: { database: 'ok', redis: 'ok' } });
      console.log(`k8s.test.ts: ${replica} ready after ${readyMs} ms`);
    }
    // The settings and files of the ConfigMaps are the ones in use.
    const logs = await logsOf(containers[0]!);
    expect(logs).toContain('/etc/parley/config/mcp_config.json');
    expect(logs).toContain('/etc/parley/specialists');
  });
});
