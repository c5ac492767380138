/**
 * Skills as a server holds them (SEP-2640): each skill's files with their bytes, digests, sizes and
 * mime types, its entry for `skills/list`, and the directory tree `resources/directory/read`
 * walks. Skills come from code (`SkillDefinition`) or from a folder on disk (`loadSkillFolder`).
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { parseSkillDocument } from '../../validation/skill-frontmatter';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MANIFEST, SKILL_NAME } from '../../schema/skills';
import { nodeCrypto } from '../../base/node-builtins';
import type { SkillEntry, SkillFile } from '../../schema/skills';

/**
 * A skill given in code: its path (the last segment is its name and must equal the frontmatter
 * `name`; earlier ones group skills, `acme/billing/refunds`) and its files by relative path, with
 * `SKILL.md` among them. Text is served as UTF-8.
 */
export interface SkillDefinition {
  readonly path: string;
  readonly files: Readonly<Record<string, string | Uint8Array>>;
}

/** One file of a skill as served. */
export interface SkillFileContent {
  readonly uri: string;
  /** The path within the skill (`references/FORMS.md`). */
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  /** The content as text when it is UTF-8 of a textual type; else it is served as a blob. */
  readonly text: string | undefined;
  readonly digest: string;
}

/** A skill ready to serve. */
export interface CatalogSkill {
  readonly path: string;
  readonly entry: SkillEntry;
  readonly files: readonly SkillFileContent[];
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.xml': 'application/xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
};

/** The mime type a skill file is served with, from its extension. */
export function skillMimeType(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

const isTextual = (mimeType: string) => mimeType.startsWith('text/') || /json|yaml|xml|javascript|svg/.test(mimeType);

function textOf(bytes: Uint8Array, mimeType: string): string | undefined {
  if (!isTextual(mimeType)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function checkPath(path: string, what: string): string[] {
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw new TypeError(`${what} ${JSON.stringify(path)} must be a relative path of non-empty segments`);
  return segments;
}

/** Builds one skill from its definition; `base` is where skill paths start (`skill://`). */
export function catalogSkill(definition: SkillDefinition, base: string): CatalogSkill {
  const segments = checkPath(definition.path, 'skill path');
  const name = segments.at(-1)!;
  if (!SKILL_NAME.test(name))
    throw new TypeError(`skill name ${JSON.stringify(name)} must be 1-64 of a-z, 0-9 and single inner hyphens`);
  const manifest = definition.files[SKILL_MANIFEST];
  if (manifest === undefined) throw new TypeError(`skill ${definition.path} has no ${SKILL_MANIFEST}`);
  const manifestText = typeof manifest === 'string' ? manifest : new TextDecoder().decode(manifest);
  const { frontmatter } = parseSkillDocument(manifestText);
  if (frontmatter.name !== name)
    throw new TypeError(
      `skill ${definition.path}: frontmatter name ${JSON.stringify(frontmatter.name)} is not ${name}`,
    );
  if (typeof frontmatter.description !== 'string' || frontmatter.description === '')
    throw new TypeError(`skill ${definition.path}: the frontmatter has no description`);
  const root = `${base}${definition.path}`;
  const files = Object.entries(definition.files)
    .sort(([a], [b]) => (a === SKILL_MANIFEST ? -1 : b === SKILL_MANIFEST ? 1 : a.localeCompare(b)))
    .map(([path, content]): SkillFileContent => {
      checkPath(path, `file of skill ${definition.path}`);
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      const mimeType = skillMimeType(path);
      return {
        uri: `${root}/${path}`,
        path,
        bytes,
        mimeType,
        text: textOf(bytes, mimeType),
        // The same digest as `skillDigest`, computed at once: a server runs on Node.
        digest: `sha256:${nodeCrypto().createHash('sha256').update(bytes).digest('hex')}`,
      };
    });
  const total = files.reduce((sum, file) => sum + file.bytes.length, 0);
  if (files.length > MAX_SKILL_FILES || total > MAX_SKILL_BYTES)
    throw new RangeError(
      `skill ${definition.path} has ${files.length} files of ${total} bytes; at most ${MAX_SKILL_FILES} and ${MAX_SKILL_BYTES} are served`,
    );
  const resources: SkillFile[] = files.map((file) => ({ uri: file.uri, digest: file.digest, size: file.bytes.length }));
  const entry = { uri: `${root}/${SKILL_MANIFEST}`, frontmatter, resources } as SkillEntry;
  return { path: definition.path, entry, files };
}

/** Where a skill folder is walked from, with what the walk has taken so far. */
interface FolderWalk {
  /** The real path of the folder: nothing whose real path lies outside it is served. */
  readonly rootReal: string;
  /** Real paths of the directories entered, so that a symlink loop is entered once. */
  readonly entered: Set<string>;
}

/** The real path of `path` when it is `rootReal` or lies inside it; undefined when it leads outside or is gone. */
function realInside(path: string, rootReal: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  const prefix = rootReal.endsWith(sep) ? rootReal : `${rootReal}${sep}`;
  return real === rootReal || real.startsWith(prefix) ? real : undefined;
}

/**
 * The bytes of the regular file at `real` (a path with no symlink in it), read through one
 * descriptor whose size is checked before reading: a file past `budget` bytes is refused without
 * being read, and one that grows meanwhile is read only up to the size it had. Undefined for
 * anything that is not a regular file (a device, a FIFO, a socket is never opened for reading).
 */
function readBounded(real: string, budget: number, what: string): Uint8Array | undefined {
  if (!statSync(real).isFile()) return undefined;
  const fd = openSync(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    if (stats.size > budget)
      throw new RangeError(
        `${what} is ${stats.size} bytes: with the files before it, past the ${MAX_SKILL_BYTES} bytes a skill may serve`,
      );
    const bytes = Buffer.alloc(stats.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Skill files read so far, and what is left of a skill's limits. */
interface SkillBudget {
  files: number;
  bytes: number;
}

/**
 * Every file under `dir`, by path relative to `skillDir` with `/` separators. Hidden names are
 * skipped, and so is every entry whose real path leaves the walk's root (a symlink out of it) or
 * that is neither a regular file nor a directory. Sizes count against the skill's limits before
 * any byte is read.
 */
function filesUnder(
  walk: FolderWalk,
  skillDir: string,
  dir: string,
  out: Record<string, Uint8Array>,
  budget: SkillBudget,
): void {
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const full = join(dir, name);
    const real = realInside(full, walk.rootReal);
    if (real === undefined) continue;
    const path = relative(skillDir, full).split(sep).join('/');
    const stats = statSync(real);
    if (stats.isDirectory()) {
      if (walk.entered.has(real)) continue;
      walk.entered.add(real);
      filesUnder(walk, skillDir, full, out, budget);
      walk.entered.delete(real);
    } else if (stats.isFile()) {
      if (++budget.files > MAX_SKILL_FILES)
        throw new RangeError(`skill folder ${skillDir} has more than ${MAX_SKILL_FILES} files`);
      const bytes = readBounded(real, MAX_SKILL_BYTES - budget.bytes, `skill file ${path} of ${skillDir}`);
      if (bytes === undefined) continue;
      budget.bytes += bytes.length;
      out[path] = bytes;
    }
  }
}

/**
 * Reads the skills in a folder: every folder under `root` that has a `SKILL.md` is a skill whose
 * path is the folder's, relative to `root` (`root/acme/pdf-processing/SKILL.md` is the skill
 * `acme/pdf-processing`), with every file below it. A skill's folder holds no other skill.
 *
 * Only what lies inside `root` is read: a symlink whose target (its real path) is inside `root` is
 * followed, one leading outside it is skipped, and a loop of symlinks is entered once. A file's
 * size is checked before it is read, so a skill past its limits (`MAX_SKILL_FILES` files,
 * `MAX_SKILL_BYTES` bytes) throws a `RangeError` without its files being read whole.
 */
export function loadSkillFolder(root: string): SkillDefinition[] {
  const rootReal = realpathSync(root);
  const walk: FolderWalk = { rootReal, entered: new Set([rootReal]) };
  const skills: SkillDefinition[] = [];
  const visit = (dir: string) => {
    const names = readdirSync(dir);
    if (names.includes(SKILL_MANIFEST) && dir !== root) {
      const files: Record<string, Uint8Array> = {};
      filesUnder(walk, dir, dir, files, { files: 0, bytes: 0 });
      skills.push({ path: relative(root, dir).split(sep).join('/'), files });
      return;
    }
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      const full = join(dir, name);
      const real = realInside(full, rootReal);
      if (real === undefined || walk.entered.has(real) || !statSync(real).isDirectory()) continue;
      walk.entered.add(real);
      visit(full);
      walk.entered.delete(real);
    }
  };
  visit(root);
  return skills;
}
