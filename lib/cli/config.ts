/**
 * The servers file of `rxmcp proxy`: the `mcpServers` object desktop clients use, each entry a
 * process to spawn (`command`, `args`, `env`, `cwd`) or a server to reach (`url`, `headers`,
 * `type`). `${VAR}` (or `${VAR:-default}`) in any of these strings reads this process's
 * environment.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError } from './errors';
import { findJsonProblem, lineAndColumn, showLine } from './json-error';

export { ConfigError } from './errors';

/** A server the proxy spawns and speaks to over stdio. */
export interface StdioUpstream {
  readonly kind: 'stdio';
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
}

/** A server the proxy reaches over HTTP: Streamable HTTP, or the 2024-11-05 HTTP+SSE transport (`sse`). */
export interface UrlUpstream {
  readonly kind: 'http' | 'sse';
  readonly name: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

export type Upstream = StdioUpstream | UrlUpstream;

const Strings = z.record(z.string(), z.string());

/** Extra keys (`disabled`, `autoApprove`, `timeout`...) that other clients keep in an entry are allowed. */
const StdioEntrySchema = z.looseObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: Strings.optional(),
  cwd: z.string().min(1).optional(),
  disabled: z.boolean().optional(),
});

const UrlEntrySchema = z.looseObject({
  url: z.string().min(1),
  headers: Strings.optional(),
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  disabled: z.boolean().optional(),
});

const ConfigFileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()) });

/** An upstream's name prefixes its tools (`files_read`) and resource URIs (`files+file:///…`). */
const NAME = /^[A-Za-z][A-Za-z0-9.-]*$/;

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

/** The first problem zod found, as `"field" must be ...`. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'is not valid';
  const path = issue.path.map(String).join('.');
  return path === '' ? issue.message : `"${path}": ${issue.message}`;
}

/** One entry of `mcpServers`, checked and with its variables expanded; undefined when disabled. */
export function parseEntry(
  file: string,
  name: string,
  entry: unknown,
  env: Readonly<Record<string, string | undefined>>,
): Upstream | undefined {
  const where = `${file}: mcpServers.${name}`;
  if (!NAME.test(name)) {
    throw new ConfigError(
      `${where}: the name must be letters, digits, "." and "-", starting with a letter (it prefixes tool names)`,
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
    };
  }
  const parsed = UrlEntrySchema.safeParse(entry);
  if (!parsed.success) throw new ConfigError(`${where}: ${describeIssue(parsed.error)}`);
  if (parsed.data.disabled) return undefined;
  const written = expandVariables(parsed.data.url, env, `${where}.url`);
  const url = URL.canParse(written) ? new URL(written) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(`${where}: "url" must be an http or https URL, not "${written}"`);
  }
  const headers = expandAll(parsed.data.headers, env, `${where}.headers`);
  return { kind: parsed.data.type === 'sse' ? 'sse' : 'http', name, url, headers };
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
export function parseConfig(file: string, text: string, env: Readonly<Record<string, string | undefined>>): Upstream[] {
  let json: unknown;
  try {
    // A byte order mark, as some Windows editors write, is not part of the JSON.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ConfigError(notJson(file, text.replace(/^\uFEFF/, ''), error as Error));
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError(`${file}: expected an object with "mcpServers": { "<name>": {...} }`);
  const upstreams = Object.entries(parsed.data.mcpServers).flatMap(([name, entry]) => {
    const upstream = parseEntry(file, name, entry, env);
    return upstream ? [upstream] : [];
  });
  if (upstreams.length === 0) throw new ConfigError(`${file}: "mcpServers" lists no server to start`);
  return upstreams;
}

/** Reads and parses a servers file. Throws {@link ConfigError}, naming the file, when it cannot be read. */
export async function readConfig(file: string, env: Readonly<Record<string, string | undefined>>): Promise<Upstream[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new ConfigError(`cannot read ${file}: ${why}`);
  }
  return parseConfig(file, text, env);
}
