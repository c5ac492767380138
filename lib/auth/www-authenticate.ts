/**
 * Reading `WWW-Authenticate` (RFC 9110 §11.6.1): the challenges a protected MCP server answers
 * 401 and 403 with, and the parameters of its `Bearer` (or `DPoP`) challenge that the client acts
 * on: `resource_metadata` (RFC 9728 §5.1), `scope` and `error` (RFC 6750 §3).
 */

/** One challenge: its scheme (lower-cased) and its parameters (names lower-cased). */
export interface AuthChallenge {
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/** What a client needs from a Bearer challenge. */
export interface BearerChallenge {
  /** `bearer`, or `dpop` when the server asks for proof-of-possession tokens (RFC 9449 §7.1). */
  readonly scheme?: 'bearer' | 'dpop';
  /** The protected resource metadata URL the server named. */
  readonly resourceMetadata?: string;
  /** The scopes the request needs, space-separated. */
  readonly scope?: string;
  /** `invalid_token`, `insufficient_scope`, `invalid_request`, or another code. */
  readonly error?: string;
  readonly errorDescription?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/**
 * Splits a `WWW-Authenticate` value into challenges. Lenient where servers are sloppy (spaces
 * around `=`, unquoted values with `/`), strict enough that a quoted comma or an escaped quote does
 * not split a value. A `token68` challenge keeps it under the parameter name `token68`.
 */
export function parseChallenges(header: string): AuthChallenge[] {
  const challenges: Array<{ scheme: string; params: Record<string, string> }> = [];
  let rest = header.trim();
  while (rest !== '') {
    rest = rest.replace(/^[\s,]+/, '');
    const scheme = TOKEN.exec(rest)?.[0];
    if (scheme === undefined) break;
    rest = rest.slice(scheme.length);
    const challenge = { scheme: scheme.toLowerCase(), params: {} as Record<string, string> };
    challenges.push(challenge);
    rest = readParams(rest, challenge.params);
  }
  return challenges;
}

/** Reads `name=value` pairs up to the next challenge; returns what is left. */
function readParams(input: string, params: Record<string, string>): string {
  let rest = input;
  for (;;) {
    rest = rest.replace(/^[\s,]+/, '');
    const name = TOKEN.exec(rest)?.[0];
    if (name === undefined) return rest;
    const after = rest.slice(name.length).replace(/^\s*/, '');
    if (!after.startsWith('=')) return rest; // the next challenge's scheme
    let value = after.slice(1).replace(/^\s*/, '');
    if (value.startsWith('"')) {
      const read = readQuoted(value);
      params[name.toLowerCase()] = read.value;
      rest = read.rest;
      continue;
    }
    const bare = /^[^\s,]*/.exec(value)?.[0] ?? '';
    // `name=` followed by `=` padding is a token68 (`Basic abc==`).
    if (/^=*$/.test(bare) && bare !== '') {
      params.token68 = name + '=' + bare;
    } else params[name.toLowerCase()] = bare;
    value = value.slice(bare.length);
    rest = value;
  }
}

function readQuoted(input: string): { value: string; rest: string } {
  let value = '';
  let i = 1;
  for (; i < input.length; i++) {
    const char = input[i] as string;
    if (char === '\\' && i + 1 < input.length) {
      value += input[++i];
      continue;
    }
    if (char === '"') return { value, rest: input.slice(i + 1) };
    value += char;
  }
  return { value, rest: '' };
}

/** The Bearer (or else DPoP) challenge of a `WWW-Authenticate` value, if it has one. */
export function bearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const challenges = parseChallenges(header);
  const found = challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'dpop');
  if (!found) return undefined;
  const { params } = found;
  return {
    scheme: found.scheme === 'dpop' ? 'dpop' : 'bearer',
    ...(params.resource_metadata !== undefined ? { resourceMetadata: params.resource_metadata } : {}),
    ...(params.scope !== undefined ? { scope: params.scope } : {}),
    ...(params.error !== undefined ? { error: params.error } : {}),
    ...(params.error_description !== undefined ? { errorDescription: params.error_description } : {}),
  };
}
