// RS1 over a TLS Redis (`rediss://`, what hosted Redis offers): both of a replica's
// connections — ioredis for commands and the replica's own RESP subscriber (subscriber.ts) —
// speak TLS and verify the server's certificate, so a pair split across two replicas still talks.
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import url from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCommand } from '../../testkit/bundles.ts';
import { newRoom } from '../test-support/relay-fixture.ts';
import { startRedis, type TestRedis } from '../test-support/redis-server.ts';
import { killReplica, startReplicaProcess } from '../test-support/replica-process.ts';
import { makeSelfSigned, type SelfSigned } from '../test-support/self-signed.ts';
import { connectClient, type TestClient } from '../test-support/ws-client.ts';

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');
let cert: SelfSigned;
let redis: TestRedis;
const children: ChildProcess[] = [];
const clients: TestClient[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  cert = makeSelfSigned();
  redis = await startRedis({ tls: cert });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const c of children) killReplica(c);
  await redis.stop();
  cert.remove();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function replica(env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-redis-tls-'));
  dirs.push(dataDir);
  const r = await startReplicaProcess({ redisUrl: redis.url, dataDir, heartbeatMs: 150, env });
  children.push(r.child);
  return r;
}

describe('rediss:// (TLS to Redis)', () => {
  it('machine on A, phone on B over a TLS Redis: msg both ways, verbatim; presence is global', async () => {
    // The test's own CA: the replicas trust it the way a deployment trusts its Redis's CA.
    const trust = { NODE_EXTRA_CA_CERTS: cert.certFile };
    const [a, b] = [await replica(trust), await replica(trust)];
    const room = newRoom();
    const m = await connectClient(a.url);
    const p = await connectClient(b.url);
    clients.push(m, p);
    await m.hello(room, 'machine');
    expect(await p.hello(room, 'phone')).toMatchObject({ peers: { machine: 1, phone: 1 } });
    expect(await m.nextFrame('presence')).toMatchObject({ role: 'phone', online: true });
    const down = `{"kind":"msg","room":"${room}","payload":"${'QUJD'.repeat(3000)}"}`;
    const up = `{"kind":"msg","room":"${room}","payload":"cGhvbmU="}`;
    m.send(down);
    p.send(up);
    expect(await p.nextRaw()).toBe(down);
    expect(await m.nextRaw()).toBe(up);
  });

  it('a replica that cannot verify the Redis certificate refuses to start, and says why', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-redis-tls-'));
    dirs.push(dataDir);
    const relay = nodeCommand('relay/main.ts');
    const run = spawnSync(
      relay.command,
      [...relay.args, '--port', '0', '--data-dir', dataDir, '--redis', redis.url],
      { cwd: root, encoding: 'utf8', timeout: 20_000 },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain('relay listening');
    expect(run.stderr).toContain(
      `relay: cannot start: cannot reach Redis at 127.0.0.1:${redis.port}: self-signed certificate`,
    );
  });
});
