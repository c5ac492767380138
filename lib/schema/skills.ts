/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server serves Agent Skills
 * (a directory with a `SKILL.md` and supporting files) as resources, usually under
 * `skill://<skill-path>/`, and lists them with `skills/list` and `skills/get`. Each entry names the
 * skill's `SKILL.md`, repeats its frontmatter, and lists every file with its SHA-256 digest and
 * size (or says `"dynamic"`), so that a client can verify what it reads before using it.
 */
import { z } from 'zod';

/** The extension identifier. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
/** The skill's manifest file, at the root of its directory. */
export const SKILL_MANIFEST = 'SKILL.md';
/** The mime type of a directory listed by `resources/directory/read`. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';
/** Past these a server should not serve a skill: 512 files, 16 MiB in all. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** A skill name (the last segment of its path): 1 to 64 of a-z, 0-9 and single inner hyphens. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

/** `sha256:` and 64 lowercase hex digits: the digest of a file's raw bytes. */
export const SkillDigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** One file of a skill: its URI, digest and size in bytes. */
export const SkillFileSchema = z.looseObject({
  uri: z.string(),
  digest: SkillDigestSchema,
  size: z.number().int().nonnegative(),
});
/** One file of a skill: its URI, digest and size in bytes. */
export type SkillFile = z.infer<typeof SkillFileSchema>;

/** A skill as `skills/list` and `skills/get` describe it. */
export const SkillEntrySchema = z.looseObject({
  /** The full URI of the skill's `SKILL.md`. */
  uri: z.string().min(1),
  /** The `SKILL.md` frontmatter as a JSON object; `name` and `description` are always there. */
  frontmatter: z.looseObject({ name: z.string().min(1), description: z.string().min(1) }),
  /** Every file of the skill (its `SKILL.md` included), or `"dynamic"` when the server cannot list them. */
  resources: z.union([z.array(SkillFileSchema), z.literal('dynamic')]),
});
/** A skill as `skills/list` and `skills/get` describe it. */
export type SkillEntry = z.infer<typeof SkillEntrySchema>;

export const ListSkillsRequestParamsSchema = z.looseObject({ cursor: z.string().optional() });
export const ListSkillsResultSchema = z.looseObject({
  skills: z.array(SkillEntrySchema),
  nextCursor: z.string().optional(),
});
/** The result of `skills/list`: a page of skill entries. */
export type ListSkillsResult = z.infer<typeof ListSkillsResultSchema>;

export const GetSkillRequestParamsSchema = z.looseObject({ uri: z.string() });
export const GetSkillResultSchema = z.looseObject({ skill: SkillEntrySchema });
/** The result of `skills/get`: one skill's entry. */
export type GetSkillResult = z.infer<typeof GetSkillResultSchema>;

export const DirectoryReadRequestParamsSchema = z.looseObject({ uri: z.string(), cursor: z.string().optional() });

/**
 * The digest of `bytes` as a skill entry carries it (`sha256:<hex>`), with the Web Crypto API, so
 * that it runs in browsers as in Node.
 */
export async function skillDigest(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
  return `sha256:${Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The skill name a `SKILL.md` URI ends with (`skill://acme/pdf-processing/SKILL.md` →
 * `pdf-processing`), or undefined when the URI does not end in a skill path and `/SKILL.md`.
 */
export function skillNameOf(uri: string): string | undefined {
  const scheme = uri.indexOf('://');
  if (scheme < 0) return undefined;
  const segments = uri
    .slice(scheme + 3)
    .split('/')
    .filter((segment) => segment.length > 0);
  return segments.length >= 2 && segments.at(-1) === SKILL_MANIFEST ? segments.at(-2) : undefined;
}

/** The directory URI of the skill whose `SKILL.md` is `uri` (`skill://acme/pdf-processing`). */
export function skillDirectoryOf(uri: string): string | undefined {
  return skillNameOf(uri) === undefined ? undefined : uri.slice(0, -(SKILL_MANIFEST.length + 1));
}
