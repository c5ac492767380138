/**
 * Where the authorization client keeps what it obtained: the client registration and the tokens,
 * per MCP server and authorization server, so that a change of authorization server never reuses
 * another's credentials.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OAuthError } from './errors';

/** A client registration (pre-registered, dynamically registered, or a metadata document URL). */
export interface OAuthClientInformation {
  readonly client_id: string;
  readonly client_secret?: string;
  /** `client_secret_basic`, `client_secret_post`, `private_key_jwt` or `none`. */
  readonly token_endpoint_auth_method?: string;
  readonly client_secret_expires_at?: number;
}

/** Tokens from the token endpoint, with the time they were obtained. */
export interface OAuthTokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly scope?: string;
  /** Milliseconds since the epoch when they were issued (set by the client). */
  readonly obtained_at?: number;
}

/** What is kept for one MCP server under one authorization server. */
export interface OAuthRecord {
  readonly issuer: string;
  readonly client?: OAuthClientInformation;
  readonly tokens?: OAuthTokens;
}

/** A store of records, keyed by the MCP server's resource URL and the issuer. Async, so it can be anything. */
export interface OAuthStorage {
  /** The record kept for this resource and issuer, if any. */
  load(resource: string, issuer: string): Promise<OAuthRecord | undefined>;
  /** Keeps a record (its issuer is in it), replacing the one for the same resource and issuer. */
  save(resource: string, record: OAuthRecord): Promise<void>;
  /** Forgets what is kept for a resource (all issuers). */
  clear(resource: string): Promise<void>;
}

const keyOf = (resource: string, issuer: string): string => `${resource} ${issuer.replace(/\/$/, '')}`;

/** The default store: in memory, gone with the process. */
export function createMemoryOAuthStorage(): OAuthStorage {
  const records = new Map<string, OAuthRecord>();
  return {
    load: (resource, issuer) => Promise.resolve(records.get(keyOf(resource, issuer))),
    save(resource, record) {
      records.set(keyOf(resource, record.issuer), record);
      return Promise.resolve();
    },
    clear(resource) {
      for (const key of [...records.keys()]) if (key.startsWith(`${resource} `)) records.delete(key);
      return Promise.resolve();
    },
  };
}

/** Refuses `path` when it is a symbolic link: the store neither reads nor writes through one. */
function symlinkRefused(path: string): OAuthError {
  return new OAuthError(`the token store ${path} is a symbolic link; it reads and writes only a regular file`);
}

/** The records in the file at `path`, opened without following a symbolic link; none when it does not exist. */
async function readRecords(path: string): Promise<Record<string, OAuthRecord>> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    if (code === 'ELOOP') throw symlinkRefused(path);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw new OAuthError(`the token store ${path} is not a regular file`);
    return JSON.parse(await handle.readFile('utf8')) as Record<string, OAuthRecord>;
  } finally {
    await handle.close();
  }
}

/**
 * Replaces the file at `path` with `text`: written to a new file of an unpredictable name beside
 * it, created exclusively (it fails on anything already there, a planted symbolic link included)
 * with mode 0600, flushed to disk, then renamed over `path`. The folder is created 0700. A
 * symbolic link at `path` is refused; and the rename replaces whatever is at `path` itself, so
 * nothing is ever written through a link.
 */
async function replaceFile(path: string, text: string): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const existing = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing?.isSymbolicLink()) throw symlinkRefused(path);
  const temporary = join(folder, `.${basename(path)}.${randomBytes(16).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/**
 * A store in one JSON file, for command-line tools, since it holds tokens and secrets: its folder
 * is created with mode 0700, and each save writes a new file of an unpredictable name, created
 * exclusively with mode 0600, then renamed over the old one. A symbolic link at `path` is refused
 * (an `OAuthError`), for reading and for writing.
 */
export function createFileOAuthStorage(path: string): OAuthStorage {
  const read = () => readRecords(path);
  const write = (records: Record<string, OAuthRecord>) => replaceFile(path, JSON.stringify(records, null, 2));
  // Writes one after another, so that two saves never interleave their read-modify-write.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(job: () => Promise<T>): Promise<T> => {
    const next = queue.then(job, job);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    load: async (resource, issuer) => (await read())[keyOf(resource, issuer)],
    save: (resource, record) =>
      serially(async () => {
        const records = await read();
        records[keyOf(resource, record.issuer)] = record;
        await write(records);
      }),
    clear: (resource) =>
      serially(async () => {
        const records = await read();
        for (const key of Object.keys(records)) if (key.startsWith(`${resource} `)) delete records[key];
        await write(records);
      }),
  };
}
