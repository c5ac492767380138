/**
 * Where the authorization client keeps what it obtained: the client registration and the tokens,
 * per MCP server and authorization server, so that a change of authorization server never reuses
 * another's credentials.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

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
  load(resource: string, issuer: string): Promise<OAuthRecord | undefined>;
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

/**
 * A store in one JSON file, for command-line tools: written atomically (a temporary file renamed
 * over it) with mode 0600, since it holds tokens and secrets.
 */
export function createFileOAuthStorage(path: string): OAuthStorage {
  const read = async (): Promise<Record<string, OAuthRecord>> => {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as Record<string, OAuthRecord>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  };
  const write = async (records: Record<string, OAuthRecord>): Promise<void> => {
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(records, null, 2), { mode: 0o600 });
    await rename(temporary, path);
  };
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
