/**
 * The servers file of `rxmcp proxy`: the `mcpServers` object desktop clients use (or `servers`), each
 * entry a process to spawn (`command`, `args`, `env`, `cwd`) or a server to reach (`url`, `headers`,
 * `type`), with what `aggregate` does with it (namespace, filters, renames, argument policies,
 * sharing, reconnection); beside the list, the aggregate's own options. Unknown keys are refused. `${VAR}` (or `${VAR:-default}`) in any of these strings reads this process's
 * environment.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError } from './errors';
import { findJsonProblem, lineAndColumn, showLine } from './json-error';
import { expandDeep } from './gateway-auth';
import { GATEWAY_KEYS, parseGatewayOptions } from './gateway-options';
import type { GatewayOptions } from './gateway-options';
import { parseUpstreamOAuth, UpstreamOAuthSchema } from './upstream-oauth';
import type { UpstreamOAuth } from './upstream-oauth';
import type { CollisionPolicy } from '../proxy/collisions';
import type { EntryFilter } from '../proxy/name-filter';
import type { UpstreamReconnectOptions } from '../proxy/reconnect';
import type { PromptPolicy, ToolPolicy } from '../proxy/upstream-policy';

export { ConfigError } from './errors';

/**
 * What the aggregate does with one upstream, beside reaching it: the `aggregate` options of its
 * entry (`UpstreamConfig`) that a file can say, and how long it may take to start.
 */
export interface UpstreamPolicy {
  /** The prefix of its tools, prompts and URIs: its name, with `_` written `-`; `''` for none. */
  readonly namespace: string;
  readonly tools?: ToolPolicy;
  readonly prompts?: PromptPolicy;
  readonly resources?: EntryFilter;
  readonly sharing?: 'shared' | 'perSession';
  readonly reconnect?: UpstreamReconnectOptions | false;
  /** How long it may take to connect (handshake and tool list). Default 30 s. */
  readonly startTimeoutMs?: number;
}

/** A server the proxy spawns and speaks to over stdio. */
export interface StdioUpstream {
  readonly kind: 'stdio';
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  /** Absent: the defaults (namespace: the name). */
  readonly policy?: UpstreamPolicy;
}

/** A server the proxy reaches over HTTP: Streamable HTTP, or the 2024-11-05 HTTP+SSE transport (`sse`). */
export interface UrlUpstream {
  readonly kind: 'http' | 'sse';
  readonly name: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** How the gateway signs in when the server asks (`oauth`); absent: a sign-in kept in memory. */
  readonly oauth?: UpstreamOAuth;
  readonly policy?: UpstreamPolicy;
}

export type Upstream = StdioUpstream | UrlUpstream;

/** The `aggregate` options a servers file may set for all its upstreams. */
export interface AggregateSettings {
  readonly separator?: string;
  readonly collisions?: CollisionPolicy;
  readonly requestTimeoutMs?: number;
  readonly reconnect?: UpstreamReconnectOptions;
  readonly instructions?: string;
}

/** A servers file, read: its servers, the aggregate's options, and how the gateway serves. */
export interface ProxyConfig extends GatewayOptions {
  readonly upstreams: readonly Upstream[];
  readonly settings: AggregateSettings;
}

const Strings = z.record(z.string(), z.string());
const Matcher = z.union([z.string(), z.array(z.string())]);
const Filter = { include: Matcher.optional(), exclude: Matcher.optional() };
const Rename = z.record(z.string(), z.string().min(1));
const ArgumentPolicySchema = z.union([z.strictObject({ hidden: z.json() }), z.strictObject({ default: z.json() })]);
const ReconnectSchema = z.strictObject({
  initialDelayMs: z.number().int().min(0).optional(),
  maxDelayMs: z.number().int().min(0).optional(),
  factor: z.number().min(1).optional(),
  jitter: z.number().min(0).max(1).optional(),
  maxAttempts: z.number().int().min(1).optional(),
});

/** Keys other clients keep in an entry: accepted, and ignored. */
const FOREIGN = {
  autoApprove: z.array(z.string()).optional(),
  alwaysAllow: z.array(z.string()).optional(),
  timeout: z.number().optional(),
  description: z.string().optional(),
};

const COMMON = {
  disabled: z.boolean().optional(),
  namespace: z.string().optional(),
  tools: z
    .strictObject({
      ...Filter,
      rename: Rename.optional(),
      arguments: z.record(z.string(), z.record(z.string(), ArgumentPolicySchema)).optional(),
    })
    .optional(),
  prompts: z.strictObject({ ...Filter, rename: Rename.optional() }).optional(),
  resources: z.strictObject(Filter).optional(),
  sharing: z.enum(['shared', 'perSession']).optional(),
  reconnect: z.union([ReconnectSchema, z.literal(false)]).optional(),
  startTimeoutMs: z.number().int().min(1).optional(),
  ...FOREIGN,
};

const StdioEntrySchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: Strings.optional(),
  cwd: z.string().min(1).optional(),
  ...COMMON,
});

const UrlEntrySchema = z.strictObject({
  url: z.string().min(1),
  headers: Strings.optional(),
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  oauth: UpstreamOAuthSchema.optional(),
  ...COMMON,
});

const Servers = z.record(z.string(), z.unknown());
const ConfigFileSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: Servers.optional(),
  servers: Servers.optional(),
  separator: z.string().min(1).optional(),
  collisions: z.enum(['prefix', 'first', 'error']).optional(),
  requestTimeoutMs: z.number().int().min(1).optional(),
  reconnect: ReconnectSchema.optional(),
  instructions: z.string().optional(),
  ...GATEWAY_KEYS,
});

/** A server's name: letters, digits, `.`, `-` and `_`, starting with a letter. */
const NAME = /^[A-Za-z][A-Za-z0-9._-]*$/;
/** What a namespace may hold (it starts URI schemes): the separator must hold something else. */
const NAMESPACE_CHARACTER = /^[A-Za-z0-9.-]$/;

/** The namespace of a server's name: `_`, which a URI scheme cannot hold, becomes `-` (`my_files` → `my-files`). */
export function namespaceOf(name: string): string {
  return name.replace(/_/g, '-');
}

/** `${VAR}` and `${VAR:-default}`. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Replaces each `${VAR}` in `value` from `env`; a variable that is not set and has no default is an error. */
export function expandVariables(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): string {
  return value.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    if (found !== undefined) return found;
    throw new ConfigError(`${where}: the environment variable ${name} is not set`);
  });
}

function expandAll(
  values: Readonly<Record<string, string>> | undefined,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {}).map(([key, value]) => [key, expandVariables(value, env, `${where}.${key}`)]),
  );
}

/** The first problem zod found, as `"tools.rename": ...`, or `unknown key "tools.foo"`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'is not valid';
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `"${[...path, key].join('.')}"`);
    return `unknown key${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`;
  }
  if (issue.code === 'invalid_union' && path.at(-1) !== undefined) {
    // An argument policy, a reconnect setting: say what the choices were.
    return `"${path.join('.')}": ${unionHint(path)}`;
  }
  return path.length === 0 ? issue.message : `"${path.join('.')}": ${issue.message}`;
}

function unionHint(path: readonly string[]): string {
  if (path[0] === 'tools' && path[1] === 'arguments')
    return 'an argument policy is { "hidden": value } or { "default": value }';
  if (path[0] === 'reconnect') return 'false, or { initialDelayMs, maxDelayMs, factor, jitter, maxAttempts }';
  return 'a name, a glob ("read_*") or a list of them';
}

type Entry = z.infer<typeof StdioEntrySchema> | z.infer<typeof UrlEntrySchema>;

/** A name list of the file as a `NameMatcher`: a string, or an array of them. */
function filterOf(filter: { include?: string | string[]; exclude?: string | string[] } | undefined): EntryFilter {
  return {
    ...(filter?.include !== undefined ? { include: filter.include } : {}),
    ...(filter?.exclude !== undefined ? { exclude: filter.exclude } : {}),
  };
}

function policyOf(name: string, data: Entry): UpstreamPolicy {
  return {
    namespace: data.namespace ?? namespaceOf(name),
    ...(data.tools
      ? { tools: { ...filterOf(data.tools), ...pick(data.tools, 'rename', 'arguments') } as ToolPolicy }
      : {}),
    ...(data.prompts ? { prompts: { ...filterOf(data.prompts), ...pick(data.prompts, 'rename') } } : {}),
    ...(data.resources ? { resources: filterOf(data.resources) } : {}),
    ...pick(data, 'sharing', 'reconnect', 'startTimeoutMs'),
  };
}

function pick<T extends object, K extends keyof T>(value: T, ...keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]])) as Partial<
    Pick<T, K>
  >;
}

/** One entry of `mcpServers` (or `servers`), checked and with its variables expanded; undefined when disabled. */
export function parseEntry(
  file: string,
  name: string,
  entry: unknown,
  env: Readonly<Record<string, string | undefined>>,
  key = 'mcpServers',
): Upstream | undefined {
  const where = `${file}: ${key}.${name}`;
  if (!NAME.test(name)) {
    throw new ConfigError(
      `${where}: the name must be letters, digits, ".", "-" and "_", starting with a letter (it prefixes tool names)`,
    );
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new ConfigError(`${where}: an entry is an object with "command" or "url"`);
  }
  const hasCommand = 'command' in entry;
  if (hasCommand === 'url' in entry) throw new ConfigError(`${where}: an entry has either "command" or "url"`);
  if (hasCommand) {
    const parsed = StdioEntrySchema.safeParse(entry);
    if (!parsed.success) throw new ConfigError(`${where}: ${describeIssue(parsed.error)}`);
    if (parsed.data.disabled) return undefined;
    const { data } = parsed;
    return {
      kind: 'stdio',
      name,
      command: expandVariables(data.command, env, `${where}.command`),
      args: (data.args ?? []).map((arg, i) => expandVariables(arg, env, `${where}.args.${i}`)),
      env: expandAll(data.env, env, `${where}.env`),
      cwd: data.cwd === undefined ? undefined : expandVariables(data.cwd, env, `${where}.cwd`),
      policy: policyOf(name, data),
    };
  }
  const parsed = UrlEntrySchema.safeParse(entry);
  if (!parsed.success) throw new ConfigError(`${where}: ${describeIssue(parsed.error)}`);
  if (parsed.data.disabled) return undefined;
  const written = expandVariables(parsed.data.url, env, `${where}.url`);
  const url = URL.canParse(written) ? new URL(written) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'http+unix:')) {
    throw new ConfigError(`${where}: "url" must be an http, https or http+unix URL, not "${written}"`);
  }
  const headers = expandAll(parsed.data.headers, env, `${where}.headers`);
  const kind = parsed.data.type === 'sse' ? 'sse' : 'http';
  const signIn = parsed.data.oauth;
  if (signIn && kind === 'sse') throw new ConfigError(`${where}: "oauth" needs Streamable HTTP, not "type": "sse"`);
  const expand = (value: string, at: string) => expandVariables(value, env, `${where}.${at}`);
  const oauth = signIn && parseUpstreamOAuth(where, file, expandDeep(signIn, expand, 'oauth'), env);
  return { kind, name, url, headers, ...(oauth ? { oauth } : {}), policy: policyOf(name, parsed.data) };
}

/**
 * Why a servers file is not JSON, as `file:line:column`, what was expected there, and the line
 * with a caret under the spot (the parser's own message when the scanner finds nothing amiss).
 */
function notJson(file: string, text: string, error: Error): string {
  const problem = findJsonProblem(text);
  if (!problem) return `${file} is not valid JSON: ${error.message}`;
  const { line, column } = lineAndColumn(text, problem.offset);
  return `${file} is not valid JSON: line ${line}, column ${column}: ${problem.message}\n${showLine(text, problem.offset)}`;
}

/** Parses the text of a servers file (`file` names it in errors). Throws {@link ConfigError}. */
export function parseProxyConfig(
  file: string,
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): ProxyConfig {
  let json: unknown;
  try {
    // A byte order mark, as some Windows editors write, is not part of the JSON.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ConfigError(notJson(file, text.replace(/^\uFEFF/, ''), error as Error));
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new ConfigError(`${file}: expected an object with "mcpServers": { "<name>": {...} }`);
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError(`${file}: ${describeIssue(parsed.error)}`);
  const { mcpServers, servers, $schema: _schema, auth, policies, metrics, ...settings } = parsed.data;
  if (mcpServers && servers)
    throw new ConfigError(`${file}: "mcpServers" and "servers" are two names for one list: keep one`);
  const key = servers ? 'servers' : 'mcpServers';
  const list = servers ?? mcpServers;
  if (!list) throw new ConfigError(`${file}: expected an object with "mcpServers": { "<name>": {...} }`);
  const upstreams = Object.entries(list).flatMap(([name, entry]) => {
    const upstream = parseEntry(file, name, entry, env, key);
    return upstream ? [upstream] : [];
  });
  if (upstreams.length === 0) throw new ConfigError(`${file}: "${key}" lists no server to start`);
  checkNames(file, key, upstreams, settings.separator ?? '_');
  const expand = (value: string, where: string) => expandVariables(value, env, `${file}: ${where}`);
  return { upstreams, settings, ...parseGatewayOptions(file, { auth, policies, metrics }, env, expand) };
}

/**
 * What `aggregate` would refuse, said against the file: a separator a namespace could hold (then
 * `a-b_x` could be two tools), a namespace that cannot start a URI, two servers with one namespace.
 */
function checkNames(file: string, key: string, upstreams: readonly Upstream[], separator: string): void {
  if ([...separator].every((c) => NAMESPACE_CHARACTER.test(c)))
    throw new ConfigError(
      `${file}: "separator": "${separator}" could be part of a namespace; use a character other than letters, digits, "." and "-"`,
    );
  const seen = new Map<string, string>();
  for (const upstream of upstreams) {
    const namespace = upstream.policy?.namespace ?? namespaceOf(upstream.name);
    if (namespace === '') continue;
    if (!/^[A-Za-z][A-Za-z0-9.-]*$/.test(namespace))
      throw new ConfigError(
        `${file}: ${key}.${upstream.name}: "namespace": "${namespace}" must be letters, digits, "." and "-", starting with a letter (it prefixes resource URIs)`,
      );
    const other = seen.get(namespace);
    if (other !== undefined)
      throw new ConfigError(
        `${file}: ${key}.${other} and ${key}.${upstream.name} have the same namespace "${namespace}"`,
      );
    seen.set(namespace, upstream.name);
  }
}

/** The upstreams of a servers file's text. Throws {@link ConfigError}. */
export function parseConfig(file: string, text: string, env: Readonly<Record<string, string | undefined>>): Upstream[] {
  return [...parseProxyConfig(file, text, env).upstreams];
}

/** Reads and parses a servers file. Throws {@link ConfigError}, naming the file, when it cannot be read. */
export async function readProxyConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProxyConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new ConfigError(`cannot read ${file}: ${why}`);
  }
  return parseProxyConfig(file, text, env);
}

/** The upstreams of a servers file. Throws {@link ConfigError}. */
export async function readConfig(file: string, env: Readonly<Record<string, string | undefined>>): Promise<Upstream[]> {
  return [...(await readProxyConfig(file, env)).upstreams];
}
