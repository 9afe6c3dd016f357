// `npm run lint` (so `npm test`): fails, naming file and line, on any tracked file that cites an
// issue number or a folder outside the repository instead of a rule id (see stray-refs.ts).
import { formatStrayRef, scanTrackedFiles } from './stray-refs.ts';

const found = scanTrackedFiles(process.argv[2] ?? process.cwd());
for (const ref of found) console.error(formatStrayRef(ref));
if (found.length > 0) {
  console.error(
    `${found.length} reference(s) to issues or outside folders; rule ids are in docs/rules.md`,
  );
  process.exit(1);
}
