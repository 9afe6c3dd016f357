// What protocol/ costs the phone's bundle: minified + gzip bytes of typical imports, as a ratio
// to tweetnacl alone (the baseline every page that seals or opens pays anyway), measured in
// the same run. Run: npx tsx bench/protocol-size.ts
import { build } from 'esbuild';
import path from 'node:path';
import url from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const lib = path.join(root, 'protocol/index.ts');

const CASES: [string, string][] = [
  ['tweetnacl alone (baseline)', `import nacl from 'tweetnacl'; export const x = nacl;`],
  ['all of protocol/', `export * from '${lib}';`],
  [
    'phone: seal/open, keys, pairing, machine parser',
    `export { seal, open, roomKeys, parsePairing, parsePairingLink, parseMachineMessage, clampText } from '${lib}';`,
  ],
  [
    'phone + E2–E7 helpers (approvalRespondRefusal, offeredScopes, challenge text, box keys, openRoomRotate)',
    `export { seal, open, roomKeys, parsePairing, parsePairingLink, parseMachineMessage, clampText, approvalRespondRefusal, offeredScopes, decisionChallengeText, dispatchChallengeText, makeBoxKeyPair, encodeBoxKey, decodeBoxKey, openRoomRotate } from '${lib}';`,
  ],
  ['parseMachineMessage alone (via index.ts)', `export { parseMachineMessage } from '${lib}';`],
  ['service worker: open + parseCompactPush', `export { open, parseCompactPush } from '${lib}';`],
  ['clampText only', `export { clampText } from '${lib}';`],
];

async function size(contents: string): Promise<{ min: number; gzip: number }> {
  const r = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const bytes = r.outputFiles[0]!.contents;
  return { min: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

const results: [string, { min: number; gzip: number }][] = [];
for (const [name, contents] of CASES) results.push([name, await size(contents)]);
const base = results[0]![1];
console.log(
  `protocol/ bundle cost, ${new Date().toISOString().slice(0, 10)} (esbuild, minified, gzip -9)`,
);
console.log('| import | min bytes | gzip bytes | gzip ÷ tweetnacl |');
console.log('|---|---|---|---|');
for (const [name, s] of results) {
  console.log(`| ${name} | ${s.min} | ${s.gzip} | ${(s.gzip / base.gzip).toFixed(2)} |`);
}
