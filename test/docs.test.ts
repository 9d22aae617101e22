// The docs hold to their limits: a README a user can read, benchmark notes without diaries, no internal work items named, and PERF NOTES that stay short.
//
// Limits, as CONTRIBUTING.md states them:
//   - README.md at most 300 lines, bench/README.md at most 250;
//   - no tracked file names an internal work item ("stop N", "issue N"), except
//     inside a URL (a link to another project's issue);
//   - a PERF NOTES comment is at most 8 lines: the decision and the figure behind it;
//   - every link in README.md resolves from the published package: a relative
//     link to a file the tarball ships, an absolute one to this repository to
//     a file that exists.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Folders that are built or installed, never written by hand: skipped when the tree is walked without git. */
const UNTRACKED = new Set(['node_modules', '.git', 'dist', 'build', 'partial', 'coverage']);

/** The files git tracks; without a git checkout (a copied folder), every file but built and installed ones. */
function trackedFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  if (git.status === 0 && git.stdout.length > 0) return git.stdout.split('\0').filter((f) => f !== '');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (UNTRACKED.has(entry.name)) continue;
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) out.push(rel);
    }
  };
  walk('');
  return out;
}

/** A file's text, or undefined for a binary file (one with a NUL byte) or one that is gone from the work tree. */
function textOf(file: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(path.join(root, file));
  } catch {
    return undefined;
  }
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

const INTERNAL = /\b(?:stop|issue) [0-9]+/i;
/** The same words split across a comment's lines: "issue" at a line's end, the number opening the next. */
const INTERNAL_WRAPPED = /\b(?:stop|issue)[ \t]*\r?\n[ \t]*(?:\/\/|\*|#)?[ \t]*[0-9]+\b/i;
const URL = /\bhttps?:\/\/\S+/g;

/** Each `file:line: text` of `text` that names an internal work item outside a URL. */
function internalReferences(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (INTERNAL.test(line.replace(URL, ''))) found.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  const wrapped = INTERNAL_WRAPPED.exec(text.replace(URL, ''));
  if (wrapped) found.push(`${file}: across lines: ${JSON.stringify(wrapped[0])}`);
  return found;
}

const COMMENT = /^\s*(?:\/\/|\/\*|\*)/;
/** A comment line's text, without its markers. */
const commentText = (line: string) =>
  line
    .replace(/^\s*(?:\/\*\*?|\*\/|\*|\/\/)\s?/, '')
    .replace(/\*\/\s*$/, '')
    .trim();

/**
 * Each PERF NOTES comment of `text` and its length in lines: from the comment
 * line that opens with "PERF NOTES" to the end of that comment, or to the
 * next JSDoc tag or `# ` heading within it, whichever comes first.
 */
function perfNotes(text: string): { line: number; lines: number }[] {
  const lines = text.split('\n');
  const notes: { line: number; lines: number }[] = [];
  lines.forEach((line, i) => {
    if (!COMMENT.test(line) || !/^PERF NOTES?\b/.test(commentText(line))) return;
    let n = 1;
    if (!line.includes('*/')) {
      for (let j = i + 1; j < lines.length && COMMENT.test(lines[j]) && !/^(?:@|# )/.test(commentText(lines[j])); j++) {
        n++;
        if (lines[j].includes('*/')) break;
      }
    }
    notes.push({ line: i + 1, lines: n });
  });
  return notes;
}

describe('the docs keep their limits', () => {
  it('README.md is at most 300 lines', () => {
    expect(lineCount(read('README.md'))).toBeLessThanOrEqual(300);
  });

  it("examples/worker asks for a version of mcp-frames that has this package's version (and mcp-frames/worker)", () => {
    const version = JSON.parse(read('package.json')).version as string;
    const range = JSON.parse(read('examples/worker/package.json')).dependencies['mcp-frames'] as string;
    // A caret range of 0.x takes that minor version alone: ^0.2.0 takes 0.2.x.
    const caret = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
    expect(caret, `'${range}' is a caret range`).not.toBeNull();
    const [major, minor, patch] = version.split('.').map(Number);
    const [rMajor, rMinor, rPatch] = caret!.slice(1).map(Number);
    const within = major === rMajor && (major > 0 ? minor > rMinor || (minor === rMinor && patch >= rPatch) : minor === rMinor && patch >= rPatch);
    expect(within, `examples/worker asks for ${range}, the package is ${version}`).toBe(true);
  });

  it('bench/README.md is at most 250 lines', () => {
    expect(lineCount(read('bench/README.md'))).toBeLessThanOrEqual(250);
  });

  it('no tracked file names an internal work item ("stop N", "issue N") outside a link', () => {
    const files = trackedFiles();
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => {
      const text = textOf(file);
      return text === undefined ? [] : internalReferences(file, text);
    });
    expect(found).toEqual([]);
  });

  it('every PERF NOTES comment is at most 8 lines', () => {
    const code = trackedFiles().filter((f) => /\.(?:ts|mts|js|mjs|cjs)$/.test(f));
    const notes = code.flatMap((file) => {
      const text = textOf(file);
      return text === undefined ? [] : perfNotes(text).map((note) => ({ at: `${file}:${note.line}`, lines: note.lines }));
    });
    // The hot loops of the core and of the JS path carry dozens; finding none would mean the measure broke.
    expect(notes.length).toBeGreaterThan(30);
    expect(notes.filter((note) => note.lines > 8)).toEqual([]);
  });

  it('every link in README.md resolves from the published package', () => {
    const pkg = JSON.parse(read('package.json')) as { files: string[]; repository?: { url?: string } | string };
    const repository = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
    expect(repository).toMatch(/github\.com\/mcp-frames\/mcp-frames/);
    const shipped = (file: string) => pkg.files.some((entry) => file === entry || file.startsWith(`${entry}/`));
    const links = [...read('README.md').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(5);
    const ours = 'https://github.com/mcp-frames/mcp-frames/';
    for (const link of links) {
      if (link.startsWith(ours)) {
        // blob/main/PATH or tree/main/PATH: PATH must exist in the repository.
        const rest = link.slice(ours.length).replace(/#.*$/, '');
        const file = rest.replace(/^(?:blob|tree)\/main\//, '');
        if (file !== rest) expect(fs.existsSync(path.join(root, file)), link).toBe(true);
      } else if (!/^https?:\/\//.test(link)) {
        const file = path.posix.normalize(link.replace(/#.*$/, ''));
        expect(fs.existsSync(path.join(root, file)), link).toBe(true);
        expect(shipped(file), `${link} is not in package.json "files": link it by its repository URL`).toBe(true);
      }
    }
  });
});

describe('the measures the limits use', () => {
  it('finds an internal work item on one line, across a comment wrap, and not inside a URL', () => {
    // Written in pieces, so that this file does not name what it looks for.
    const issue = ['iss', 'ue'].join('');
    expect(internalReferences('a.ts', `// as ${issue} 12 said`)).toHaveLength(1);
    expect(internalReferences('a.ts', `// fixed in ${'St'}op 4`)).toHaveLength(1);
    expect(internalReferences('a.ts', `// as the ${issue}\n// 13 asked`)).toHaveLength(1);
    expect(internalReferences('a.ts', '// workerd#988, https://github.com/cloudflare/workerd/issues/988')).toEqual([]);
    expect(internalReferences('a.ts', '// zod stops at the first issue that aborts')).toEqual([]);
  });

  it('counts a PERF NOTES comment to its end, a JSDoc tag or a heading', () => {
    const note = (n: number) => ['// PERF NOTES: the bet.', ...Array.from({ length: n - 1 }, () => '// a figure')].join('\n');
    expect(perfNotes(`${note(8)}\nconst x = 1;`)).toEqual([{ line: 1, lines: 8 }]);
    expect(perfNotes(`${note(9)}\nconst x = 1;`)).toEqual([{ line: 1, lines: 9 }]);
    expect(perfNotes('/**\n * Does it.\n *\n * PERF NOTES: why.\n * 2 ns.\n * @param x the thing\n */')).toEqual([{ line: 4, lines: 2 }]);
    expect(perfNotes('// PERF NOTES: why, 2 ns.\n//\n// # Buffers\n// more')).toEqual([{ line: 1, lines: 2 }]);
    expect(perfNotes('// see its PERF NOTES above')).toEqual([]);
  });
});
