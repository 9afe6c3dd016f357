import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

// Finding an agent's binary the way a shell would: the first executable file of that name in a
// PATH folder (E10 packaging: `--<agent>-path`, else PATH, else agents/node_modules; find-binary.ts).

export function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export function onPath(name: string, envPath: string | undefined): string | null {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    if (executable(file)) return file;
  }
  return null;
}
