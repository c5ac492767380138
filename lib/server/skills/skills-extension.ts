/**
 * Serving skills (SEP-2640, `io.modelcontextprotocol/skills`): each file of each skill is a
 * resource (`SKILL.md` named and described by its frontmatter, as `text/markdown`), the extension
 * is declared (with `directoryRead` when asked), and its methods are answered: `skills/list`
 * (paged, an entry never split), `skills/get` (-32602 for a URI that names no skill served) and,
 * with `directoryRead`, `resources/directory/read` (a directory's direct children; -32602 for
 * anything that is not a directory).
 */
import { isModernRevision } from '../../connection/modern';
import type { CacheHint } from '../../connection/modern';
import { JsonRpcError } from '../../jsonrpc/errors';
import { toValidationIssues } from '../../validation/issues';
import type { z } from 'zod';
import {
  DirectoryReadRequestParamsSchema,
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  SKILL_MANIFEST,
  SKILLS_EXTENSION,
} from '../../schema/skills';
import type { SkillEntry } from '../../schema/skills';
import type { McpServer } from '../server';
import type { ServerContext } from '../server-context';
import { catalogSkill, loadSkillFolder } from './skill-catalog';
import type { CatalogSkill, SkillDefinition } from './skill-catalog';
import { SkillTree } from './skill-tree';

/** Options of `serveSkills`. */
export interface SkillsOptions {
  /** Skills given in code. */
  readonly skills?: readonly SkillDefinition[];
  /** A folder whose skills are read at start (see `loadSkillFolder`). */
  readonly folder?: string;
  /** Where skill paths start. Default `skill://` (`skill://pdf-processing/SKILL.md`). */
  readonly baseUri?: string;
  /** Declare `directoryRead` and answer `resources/directory/read`. Default true. */
  readonly directoryRead?: boolean;
  /** Entries per page of `skills/list` and children per page of a directory. Default 100. */
  readonly pageSize?: number;
  /** Caching hints of `skills/list` and `skills/get` under a modern revision. Default a minute, public. */
  readonly cache?: CacheHint;
}

/** What `serveSkills` returns. */
export interface ServedSkills {
  /** The entries `skills/list` answers with, in order. */
  entries(): readonly SkillEntry[];
  /** Serves one more skill; throws a `TypeError` if it is malformed or its path is taken. */
  add(skill: SkillDefinition): void;
}

const DEFAULT_CACHE: CacheHint = { ttlMs: 60_000, cacheScope: 'public' };

function parse<T>(schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw JsonRpcError.invalidParams(toValidationIssues(parsed.error));
  return parsed.data;
}

/** A page of `items` from an opaque cursor; -32602 for a cursor this server did not make. */
function page<T>(items: readonly T[], cursor: string | undefined, size: number): { items: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (match === null)
      throw JsonRpcError.invalidParams(`cursor ${JSON.stringify(cursor)} was not made by this server`);
    offset = Number(match[1]);
  }
  const end = offset + size;
  const out: { items: T[]; nextCursor?: string } = { items: items.slice(offset, end) };
  if (end < items.length) out.nextCursor = Buffer.from(`o:${end}`).toString('base64url');
  return out;
}

/**
 * Serves skills on `server`: registers their files as resources and the extension with its
 * methods. Throws a `TypeError` for a malformed skill (no `SKILL.md`, frontmatter without a
 * description or whose name is not the path's last segment, a bad name) or a taken path.
 * @example
 * const server = createServer({ name: 'skills-demo', version: '1.0.0' });
 * serveSkills(server, { folder: './skills' });
 */
export function serveSkills(server: McpServer, options: SkillsOptions = {}): ServedSkills {
  const base = options.baseUri ?? 'skill://';
  const pageSize = options.pageSize ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer`);
  const cache = options.cache ?? DEFAULT_CACHE;
  const directoryRead = options.directoryRead ?? true;
  const skills: CatalogSkill[] = [];
  const tree = new SkillTree();
  const cacheable = (context: ServerContext, result: Record<string, unknown>) =>
    isModernRevision(context.revision) ? { ...result, ttlMs: cache.ttlMs, cacheScope: cache.cacheScope } : result;

  const add = (definition: SkillDefinition) => {
    const skill = catalogSkill(definition, base);
    if (skills.some((known) => known.path === skill.path)) throw new TypeError(`skill ${skill.path} is already served`);
    registerFiles(server, skill);
    skills.push(skill);
    tree.add(
      skill.files.map((file) => ({ uri: file.uri, mimeType: file.mimeType, size: file.bytes.length })),
      base,
    );
  };
  for (const definition of [...(options.folder ? loadSkillFolder(options.folder) : []), ...(options.skills ?? [])])
    add(definition);

  server.extension({
    id: SKILLS_EXTENSION,
    settings: directoryRead ? { directoryRead: true } : {},
    handlers: {
      'skills/list': (params, context) => {
        const { cursor } = parse(ListSkillsRequestParamsSchema, params);
        const { items, nextCursor } = page(skills, cursor, pageSize);
        const result: Record<string, unknown> = { skills: items.map((skill) => skill.entry) };
        if (nextCursor !== undefined) result.nextCursor = nextCursor;
        return cacheable(context, result);
      },
      'skills/get': (params, context) => {
        const { uri } = parse(GetSkillRequestParamsSchema, params);
        const skill = skills.find((known) => known.entry.uri === uri);
        if (!skill) throw JsonRpcError.invalidParams(`${uri} names no skill this server serves`);
        return cacheable(context, { skill: skill.entry });
      },
      ...(directoryRead
        ? {
            'resources/directory/read': (params: Record<string, unknown>) => {
              const { uri, cursor } = parse(DirectoryReadRequestParamsSchema, params);
              const children = tree.children(uri);
              if (children === undefined)
                throw JsonRpcError.invalidParams(`${uri} is not a directory this server serves`);
              const { items, nextCursor } = page(children, cursor, pageSize);
              return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
            },
          }
        : {}),
    },
  });
  return { entries: () => skills.map((skill) => skill.entry), add };
}

/** Each file of `skill` as a resource; `SKILL.md` takes its name and description from the frontmatter. */
function registerFiles(server: McpServer, skill: CatalogSkill): void {
  const { frontmatter } = skill.entry;
  for (const file of skill.files) {
    const manifest = file.path === SKILL_MANIFEST;
    server.resource({
      uri: file.uri,
      name: manifest ? frontmatter.name : `${skill.path}/${file.path}`,
      ...(manifest ? { description: frontmatter.description } : {}),
      mimeType: file.mimeType,
      size: file.bytes.length,
      ...(file.text !== undefined ? { text: file.text } : { blob: Buffer.from(file.bytes).toString('base64') }),
    });
  }
}
