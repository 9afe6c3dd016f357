import type { CliOptions } from './cli.ts';
import { resolveRoots } from './cwd-guard.ts';
import { startDeviceLink, type DeviceLink } from './device-link.ts';
import { consoleLog } from './log.ts';
import { MachineStartError } from './machine-types.ts';

// main.ts's `--device-lane-port`: start the lane before the machine (the machine's tool-host
// provider must exist when the first tool runs) and say how to enroll a device.

export async function startLaneForCli(
  o: CliOptions,
  port: number,
): Promise<{ link: DeviceLink; banner(): string }> {
  const resolved = resolveRoots(o.roots);
  // A bad --root is reported by createMachine with its own code; the lane just has no roots.
  const roots = resolved.ok ? resolved.roots : [];
  let link: DeviceLink;
  try {
    link = await startDeviceLink({ stateDir: o.stateDir, port, roots, log: consoleLog });
  } catch (e) {
    throw new MachineStartError(
      'device-lane-failed',
      `cannot host the device lane on 127.0.0.1:${port}: ${(e as Error).message}`,
    );
  }
  return {
    link,
    banner: () =>
      `\nDevice lane: ${link.lane.url} — tools run on an enrolled device while it is connected,\n` +
      'here otherwise. To enroll one (the token is single-use and expires in 15 minutes):\n\n' +
      `  ${link.enrollCommand(roots[0] ?? '<workspace folder>')}\n\n` +
      '  then: npm run device -- serve\n\n',
  };
}
