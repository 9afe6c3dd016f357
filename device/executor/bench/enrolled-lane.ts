// The setting every stream benchmark starts from: a lane in this process and a device enrolled
// against it (key dir and workspace in throwaway folders), ready for `serve`.
import { join } from 'node:path';
import { ALICE, startTestLane } from '../../test-support/lane-fixture.ts';
import { enrollDevice } from '../enroll.ts';
import { makeTmpDirs } from '../../../testkit/tmp.ts';

export async function enrolledLane() {
  const tmp = makeTmpDirs();
  const t = await startTestLane({ defaultTimeoutMs: 120_000 });
  const workspace = tmp.make('dsh-bench-ws-');
  const keyDir = join(tmp.make('dsh-bench-keys-'), 'keys');
  const { token } = t.lane.issueEnrollmentToken('alice');
  const enrolled = await enrollDevice({
    server: t.lane.url,
    token,
    userToken: ALICE,
    workspaceRoot: workspace,
    keyDir,
  });
  if (!enrolled.ok) throw new Error(enrolled.message);
  return { tmp, t, workspace, keyDir, deviceId: enrolled.deviceId };
}
