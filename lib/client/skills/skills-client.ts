/**
 * Reading a server's skills (SEP-2640, `io.modelcontextprotocol/skills`) as a host should: listing
 * reads no file (no prefetch: a skill's files are fetched when the skill is loaded, and a
 * supporting file when it is asked for); every file read is checked against the listed entry
 * before it is used (its size, then its SHA-256 digest); and a loaded `SKILL.md`'s frontmatter must
 * equal the entry's field by field. Content that fails a check is never returned: the read
 * rejects with `SkillVerificationError`.
 */
import { RxmcpError, RxmcpErrorCode } from '../../jsonrpc/errors';
import { firstValueFrom } from '../../rx/rxjs';
import { CapabilityNotSupportedError, ProtocolError } from '../../jsonrpc/errors';
import { FrontmatterError, parseSkillDocument } from '../../validation/skill-frontmatter';
import {
  GetSkillResultSchema,
  ListSkillsResultSchema,
  SKILLS_EXTENSION,
  skillDigest,
  skillDirectoryOf,
} from '../../schema/skills';
import type { SkillEntry } from '../../schema/skills';
import type { ReadResourceResult } from '../../schema/resources';
import type { McpClient } from '../client-api';
import { serverSupportsExtension } from '../extensions';
import { sameJson } from './same-json';

/** Why a skill file was refused. */
export type SkillVerificationFailure = 'size' | 'digest' | 'frontmatter' | 'unlisted' | 'unreadable';

/** A skill file failed verification against its entry; its content was not used. */
export class SkillVerificationError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.SkillVerification;
  override readonly name: string = 'SkillVerificationError';

  constructor(
    readonly uri: string,
    readonly failure: SkillVerificationFailure,
    readonly detail: string,
  ) {
    super(`Skill file ${uri} failed verification (${failure}): ${detail}`);
  }
}

/** One verified file of a skill. */
export interface SkillFileContents {
  readonly uri: string;
  readonly mimeType: string | undefined;
  /** The raw bytes that were verified. */
  readonly bytes: Uint8Array;
  /** The bytes as UTF-8 text. */
  readonly text: string;
  /** False only for a skill whose entry says `"dynamic"`: there was no digest to check against. */
  readonly verified: boolean;
}

/** A loaded skill: its verified `SKILL.md` and a way to read its other files when needed. */
export interface LoadedSkill {
  readonly entry: SkillEntry;
  readonly frontmatter: Record<string, unknown>;
  /** The Markdown after the frontmatter: the skill's instructions. */
  readonly body: string;
  /** Reads (and verifies) a file of the skill, by path within it (`references/FORMS.md`) or by URI. */
  readFile(pathOrUri: string): Promise<SkillFileContents>;
}

/** A client's view of the server's skills. */
export interface SkillsClient {
  /** Whether the server declared the skills extension. */
  readonly supported: boolean;
  /** Every entry of `skills/list`, across pages. Reads no skill file. */
  list(): Promise<SkillEntry[]>;
  /** The entry of one skill (`skills/get`), by its `SKILL.md` URI. Reads no skill file. */
  get(uri: string): Promise<SkillEntry>;
  /** Reads and verifies the skill's `SKILL.md` (by entry, or by URI through `get`). */
  load(skill: SkillEntry | string): Promise<LoadedSkill>;
}

const MAX_PAGES = 1000;

function bytesOf(contents: ReadResourceResult['contents'][number]): Uint8Array {
  if ('text' in contents && typeof contents.text === 'string') return new TextEncoder().encode(contents.text);
  if ('blob' in contents && typeof contents.blob === 'string') return Buffer.from(contents.blob, 'base64');
  throw new ProtocolError(`resources/read of ${contents.uri} returned neither text nor blob`);
}

/**
 * The skills of the server `client` is connected to.
 * @example
 * const skills = skillsClient(client);
 * const [entry] = await skills.list(); // nothing is read yet
 * const skill = await skills.load(entry); // SKILL.md, verified
 * const forms = await skill.readFile('references/FORMS.md'); // verified too
 */
export function skillsClient(client: McpClient): SkillsClient {
  const supported = serverSupportsExtension(client, SKILLS_EXTENSION);
  const need = (method: string) => {
    if (!supported) throw new CapabilityNotSupportedError(SKILLS_EXTENSION, method, 'server');
  };
  const request = async (method: string, params: Record<string, unknown>) =>
    firstValueFrom(client.request(method, params));

  const get = async (uri: string): Promise<SkillEntry> => {
    need('skills/get');
    const parsed = GetSkillResultSchema.safeParse(await request('skills/get', { uri }));
    if (!parsed.success) throw new ProtocolError(`skills/get for ${uri} returned no valid skill entry`);
    return parsed.data.skill;
  };

  return {
    supported,
    async list() {
      need('skills/list');
      const entries: SkillEntry[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const parsed = ListSkillsResultSchema.safeParse(await request('skills/list', cursor ? { cursor } : {}));
        if (!parsed.success) throw new ProtocolError('skills/list returned an invalid result');
        entries.push(...parsed.data.skills);
        cursor = parsed.data.nextCursor;
        if (cursor === undefined || cursor === '') return entries;
      }
      throw new ProtocolError(`skills/list returned more than ${MAX_PAGES} pages`);
    },
    get,
    async load(skill) {
      const entry = typeof skill === 'string' ? await get(skill) : skill;
      return loadSkill(client, entry);
    },
  };
}

/** Reads `uri` and checks it against `entry`'s manifest; throws before returning anything unverified. */
async function readVerified(client: McpClient, entry: SkillEntry, uri: string): Promise<SkillFileContents> {
  const listed = entry.resources === 'dynamic' ? undefined : entry.resources.find((file) => file.uri === uri);
  if (entry.resources !== 'dynamic' && listed === undefined)
    throw new SkillVerificationError(uri, 'unlisted', `the skill's entry does not list ${uri}`);
  let result: ReadResourceResult;
  try {
    result = await client.promises.readResource(uri);
  } catch (error) {
    throw new SkillVerificationError(uri, 'unreadable', error instanceof Error ? error.message : String(error));
  }
  const contents = result.contents.find((item) => item.uri === uri) ?? result.contents[0];
  if (contents === undefined)
    throw new SkillVerificationError(uri, 'unreadable', 'resources/read returned no contents');
  const bytes = bytesOf(contents);
  if (listed !== undefined) {
    // A size mismatch fails at once, whatever the digest would say.
    if (bytes.length !== listed.size)
      throw new SkillVerificationError(uri, 'size', `read ${bytes.length} bytes, the entry lists ${listed.size}`);
    const digest = await skillDigest(bytes);
    if (digest !== listed.digest)
      throw new SkillVerificationError(
        uri,
        'digest',
        `the content hashes to ${digest}, the entry lists ${listed.digest}`,
      );
  }
  return {
    uri,
    mimeType: contents.mimeType,
    bytes,
    text: new TextDecoder().decode(bytes),
    verified: listed !== undefined,
  };
}

async function loadSkill(client: McpClient, entry: SkillEntry): Promise<LoadedSkill> {
  const manifest = await readVerified(client, entry, entry.uri);
  let document;
  try {
    document = parseSkillDocument(manifest.text);
  } catch (error) {
    if (error instanceof FrontmatterError) throw new SkillVerificationError(entry.uri, 'frontmatter', error.message);
    throw error;
  }
  const keys = new Set([...Object.keys(document.frontmatter), ...Object.keys(entry.frontmatter)]);
  const differing = [...keys].filter((key) => !sameJson(document.frontmatter[key], entry.frontmatter[key]));
  if (differing.length > 0)
    throw new SkillVerificationError(
      entry.uri,
      'frontmatter',
      `the file's frontmatter differs from the entry's in ${differing.join(', ')}`,
    );
  const directory = skillDirectoryOf(entry.uri) ?? entry.uri.slice(0, entry.uri.lastIndexOf('/'));
  return {
    entry,
    frontmatter: document.frontmatter,
    body: document.body,
    readFile: (pathOrUri) =>
      readVerified(
        client,
        entry,
        pathOrUri.includes('://') ? pathOrUri : `${directory}/${pathOrUri.replace(/^\.?\//, '')}`,
      ),
  };
}
