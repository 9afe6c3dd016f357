import { afterEach, describe, expect, it } from 'vitest';
import { startTestLane, type TestLane } from '../test-support/lane-fixture.ts';
import { ALL_KINDS } from '../test-support/test-device.ts';

let t: TestLane | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('the host API', () => {
  it('onDeviceState reports when a device becomes dispatchable and when it stops; devices() agrees', async () => {
    const edges: string[] = [];
    let offline!: () => void;
    const wentOffline = new Promise<void>((r) => (offline = r));
    t = await startTestLane({
      onDeviceState: (id, online) => {
        edges.push(`${id.slice(0, 4)}:${online}`);
        if (!online) offline();
      },
    });
    const { id, dev } = await t.online();
    expect(edges).toEqual(['dev_:true']);
    expect(t.lane.devices()).toMatchObject([{ deviceId: id.deviceId, online: true, inflight: 0 }]);
    expect(t.lane.devices()[0]!.supports.sort()).toEqual([...ALL_KINDS].sort());
    await dev.cut();
    await wentOffline;
    expect(edges).toEqual(['dev_:true', 'dev_:false']);
    expect(t.lane.devices()[0]!.online).toBe(false);
  });

  it('§4 consumer-side bound: output the host does not pull past the bound cancels the remote command', async () => {
    t = await startTestLane({ outputMaxEntries: 2 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'yes' } });
    await dev.next('instruction');
    for (let s = 0; s < 3; s++) dev.chunk(h.instructionId, s, 'stdout', 'y\n');
    expect(await dev.next('cancel')).toMatchObject({ instructionId: h.instructionId });
    await t.audited((e) => e.event === 'output_overflow');
    dev.chunk(h.instructionId, 3, 'exit', 143);
    dev.result(h.instructionId, { ok: true, kind: 'cancelled', state: 'killed' });
    expect(await h.outcome).toEqual({ ok: true, kind: 'cancelled', state: 'killed' });
  });

  it('a host that reads as it goes is never cut off by the consumer-side bound', async () => {
    t = await startTestLane({ outputMaxEntries: 2 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'yes' } });
    await dev.next('instruction');
    let n = 0;
    const reading = (async () => {
      for await (const item of h.output) if (item.kind === 'stdout') n += 1;
    })();
    for (let s = 0; s < 20; s++) {
      dev.chunk(h.instructionId, s, 'stdout', 'y');
      await dev.next('chunkAck', (f) => f.upToStreamSeq === s);
      await new Promise((r) => setImmediate(r));
    }
    dev.chunk(h.instructionId, 20, 'exit', 0);
    dev.result(h.instructionId, { ok: true, kind: 'exec', exitCode: 0 });
    expect(await h.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    await reading;
    expect(n).toBe(20);
    expect(dev.pending().filter((f) => f.t === 'cancel')).toEqual([]);
  });
});
