// A throwaway self-signed certificate for 127.0.0.1, made by openssl (.ci/run installs it), for
// tests of the TLS paths (`rediss://`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type SelfSigned = { certFile: string; keyFile: string; remove(): void };

export function makeSelfSigned(): SelfSigned {
  const dir = mkdtempSync(join(tmpdir(), 'relay-tls-'));
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
