import type { CliOptions } from '../desk/cli.ts';
import { resolveRoots } from '../dispatch/cwd-guard.ts';
import { DeviceChoiceError, startDeviceLink, type DeviceLink } from './device-link.ts';
import type { Log } from '../log.ts';
import { MachineStartError } from '../machine-types.ts';

// main.ts's `--device-lane-port`: start the lane before the machine (the machine's tool-host
// provider must exist when the first tool runs) and say how to enroll a device.

export async function startLaneForCli(
  o: CliOptions,
  port: number,
  log: Log,
): Promise<{ link: DeviceLink; banner(): string }> {
  const resolved = resolveRoots(o.roots);
  // A bad --root is reported by createMachine with its own code; the lane just has no roots.
  const roots = resolved.ok ? resolved.roots : [];
  let link: DeviceLink;
  try {
    link = await startDeviceLink({
      stateDir: o.stateDir,
      port,
      roots,
      log,
      ...(o.device !== undefined ? { device: o.device } : {}),
    });
  } catch (e) {
    if (e instanceof DeviceChoiceError) throw new MachineStartError(e.code, e.message);
    throw new MachineStartError(
      'device-lane-failed',
      `cannot host the device lane on 127.0.0.1:${port}: ${(e as Error).message}`,
    );
  }
  const inUse = () => {
    const c = link.chosen();
    if (c === null) return 'none enrolled yet';
    return `${c.deviceId} (${c.why === 'chosen' ? 'chosen with --device' : 'enrolled last; --device <id> picks another'})`;
  };
  return {
    link,
    banner: () =>
      `\nDevice lane: ${link.lane.url} — tools run on the chosen enrolled device while it is\n` +
      `connected, here otherwise. Device: ${inUse()}.\n` +
      'To enroll one (the token is single-use and expires in 15 minutes), run on the device:\n\n' +
      `  ${link.enrollCommand(roots[0] ?? '<workspace folder>')}\n\n` +
      '  then: npm run device -- serve\n\n' +
      `The user credential stays in ${link.credentialFile} (owner-only):\n` +
      'the command reads it there and hands both secrets over in the environment, never on the\n' +
      "command line. On another computer, set DSH_DEVICE_USER_TOKEN to that file's content.\n\n",
  };
}
