import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTmpDir, type TmpDir } from '../../testkit/tmp.ts';
import type { FakeResponses } from './fake-responses.ts';

// An isolated Codex for one test: HOME and CODEX_HOME in a temp folder whose config.toml points
// Codex at the fake Responses server, with the flags that keep it off the internet. `gpt-5.5` is
// a model Codex knows (with an unknown name it offers no `apply_patch`); the provider is fake.
// No retries and a short stream timeout so each fault ends its turn at once. /tmp is left out
// of the sandbox's writable places, so a write to another temp folder needs an approval.

export const CODEX_TEST_ARGS = [
  '--disable',
  'plugins',
  '--disable',
  'remote_plugin',
  '--disable',
  'apps',
];
export const STREAM_IDLE_TIMEOUT_MS = 1_500;

export type CodexHome = TmpDir & { env: NodeJS.ProcessEnv; work: string; outside: string };

export function makeCodexHome(fake: FakeResponses): CodexHome {
  const home = makeTmpDir('dsh-codex-');
  const work = path.join(home.dir, 'work');
  const outside = path.join(home.dir, 'outside');
  mkdirSync(work);
  mkdirSync(outside);
  writeFileSync(
    path.join(home.dir, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      'suppress_unstable_features_warning = true',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${fake.baseUrl}"`,
      'env_key = "FAKE_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      `stream_idle_timeout_ms = ${STREAM_IDLE_TIMEOUT_MS}`,
      '[sandbox_workspace_write]',
      'exclude_slash_tmp = true',
      'exclude_tmpdir_env_var = true',
      '',
    ].join('\n'),
  );
  return {
    ...home,
    work,
    outside,
    env: {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      HOME: home.dir,
      CODEX_HOME: home.dir,
      FAKE_API_KEY: 'fake-key',
    },
  };
}
