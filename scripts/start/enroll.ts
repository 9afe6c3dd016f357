import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startPart, tsNode, type Part } from './children.ts';

// Enrolls the demo's device executor once, the way a user would, but without copying secrets
// around: the machine keeps the user credential owner-only in its state folder; this asks the
// lane for a fresh token over its management plane and hands both to `npm run device -- enroll`
// through the environment (never the command line, which other users can read).

const ENROLL_TIMEOUT_MS = 60_000;

type Record = { deviceId: string; server: string; workspaceRoot: string };

function enrolled(keyDir: string): Record | null {
  try {
    const r = JSON.parse(readFileSync(path.join(keyDir, 'device.json'), 'utf8')) as Record;
    return typeof r.deviceId === 'string' ? r : null;
  } catch {
    return null;
  }
}

export async function ensureEnrolled(o: {
  keyDir: string;
  laneUrl: string;
  workspace: string;
  credentialFile: string;
  /** Sees the enrollment process, so a Ctrl-C during it stops it too. */
  track: (part: Part) => void;
}): Promise<{ deviceId: string; reused: boolean }> {
  const existing = enrolled(o.keyDir);
  if (
    existing !== null &&
    existing.server === o.laneUrl &&
    existing.workspaceRoot === o.workspace
  ) {
    return { deviceId: existing.deviceId, reused: true };
  }
  // Enrolled against another lane port or workspace: that enrollment cannot serve this demo.
  if (existing !== null) rmSync(o.keyDir, { recursive: true, force: true });

  const credential = readFileSync(o.credentialFile, 'utf8').trim();
  const res = await fetch(`${o.laneUrl}/v1/devices/enroll-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    body: '{}',
  });
  if (!res.ok) throw new Error(`the device lane refused an enrollment token (${res.status})`);
  const { token } = (await res.json()) as { token: string };
  const part = startPart(
    'device',
    tsNode(
      'device/main.ts',
      'enroll',
      '--server',
      o.laneUrl,
      '--workspace',
      o.workspace,
      '--key-dir',
      o.keyDir,
      '--name',
      'demo device',
    ),
    { env: { DSH_DEVICE_TOKEN: token, DSH_DEVICE_USER_TOKEN: credential } },
  );
  o.track(part);
  const timer = setTimeout(() => process.kill(-part.pid, 'SIGKILL'), ENROLL_TIMEOUT_MS);
  const code = await part.exited;
  clearTimeout(timer);
  const now = enrolled(o.keyDir);
  if (code !== 0 || now === null) throw new Error(`device enrollment failed (exit ${code})`);
  return { deviceId: now.deviceId, reused: false };
}
