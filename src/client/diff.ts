// A unified diff in an approval's detail is shown with line numbers. Detection is deliberately
// strict (a hunk header is required) so a shell command is never rendered as a diff.
const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

export function looksLikeDiff(text: string): boolean {
  return text.split('\n', 400).some((line) => HUNK.test(line));
}

export type DiffLine = {
  kind: 'add' | 'del' | 'ctx' | 'hunk' | 'meta';
  text: string;
  oldNo: number | null;
  newNo: number | null;
};

export function parseUnifiedDiff(text: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  for (const line of text.split('\n')) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      inHunk = true;
      out.push({ kind: 'hunk', text: line, oldNo: null, newNo: null });
    } else if (
      !inHunk ||
      line.startsWith('diff ') ||
      line.startsWith('--- ') ||
      line.startsWith('+++ ')
    ) {
      inHunk = inHunk && !line.startsWith('diff ');
      out.push({ kind: 'meta', text: line, oldNo: null, newNo: null });
    } else if (line.startsWith('+')) {
      out.push({ kind: 'add', text: line, oldNo: null, newNo: newNo++ });
    } else if (line.startsWith('-')) {
      out.push({ kind: 'del', text: line, oldNo: oldNo++, newNo: null });
    } else {
      out.push({ kind: 'ctx', text: line, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}
