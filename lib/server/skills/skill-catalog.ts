/**
 * Skills as a server holds them (SEP-2640): each skill's files with their bytes, digests, sizes and
 * mime types, its entry for `skills/list`, and the directory tree `resources/directory/read`
 * walks. Skills come from code (`SkillDefinition`) or from a folder on disk (`loadSkillFolder`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { parseSkillDocument } from '../../schema/skill-frontmatter';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MANIFEST, SKILL_NAME } from '../../schema/skills';
import { nodeCrypto } from '../../jsonrpc/node-builtins';
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

/** Every file under `dir`, by path relative to `root` with `/` separators; hidden names are skipped. */
function filesUnder(root: string, dir: string, out: Record<string, Uint8Array>): void {
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) filesUnder(root, full, out);
    else out[relative(root, full).split(sep).join('/')] = readFileSync(full);
  }
}

/**
 * Reads the skills in a folder: every folder under `root` that has a `SKILL.md` is a skill whose
 * path is the folder's, relative to `root` (`root/acme/pdf-processing/SKILL.md` is the skill
 * `acme/pdf-processing`), with every file below it. A skill's folder holds no other skill.
 */
export function loadSkillFolder(root: string): SkillDefinition[] {
  const skills: SkillDefinition[] = [];
  const visit = (dir: string) => {
    const names = readdirSync(dir);
    if (names.includes(SKILL_MANIFEST) && dir !== root) {
      const files: Record<string, Uint8Array> = {};
      filesUnder(dir, dir, files);
      skills.push({ path: relative(root, dir).split(sep).join('/'), files });
      return;
    }
    for (const name of names.sort()) {
      const full = join(dir, name);
      if (!name.startsWith('.') && statSync(full).isDirectory()) visit(full);
    }
  };
  visit(root);
  return skills;
}
