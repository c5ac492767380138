import { firstValueFrom, NEVER } from 'rxjs';
import { z } from 'zod';
import { jose } from '../../lib/auth/jose';
import { createResourceServer, jwtVerifier } from '../../lib/auth/resource-server';
import { META } from '../../lib/connection/modern';
import { TASKS_EXTENSION } from '../../lib/schema/tasks';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import type { RequestAuthenticator } from '../../lib/transport/http/request-auth';

// What the combination matrix (`combination-matrix.spec.ts`) serves and sends: one authorization
// server's tokens for each cell, a server whose every handler notes that it ran, and the requests.

export const ISSUER = 'https://as.example';
/** The scope every request needs (the endpoint's), and the one each tool, resource and prompt needs. */
export const ENDPOINT_SCOPE = 'mcp';
export const ITEM_SCOPE = 'mcp:write';

/** The five kinds of caller each operation is tried with; only `valid` may be served. */
export const CELLS = ['no token', 'wrong audience', 'another subject', 'missing scope', 'valid'] as const;
export type Cell = (typeof CELLS)[number];

/** Signs tokens of one authorization server; `resource` is the audience the tokens name. */
export async function authority() {
  const { privateKey, publicKey } = await jose().generateKeyPair('ES256');
  const sign = (claims: Record<string, unknown>) =>
    new (jose().SignJWT)(claims)
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  /** The resource server of an endpoint at `endpoint` that trusts this authority. */
  const resourceServer = (endpoint: URL | string): RequestAuthenticator =>
    createResourceServer({
      resource: String(endpoint),
      authorizationServers: [ISSUER],
      scopesSupported: [ENDPOINT_SCOPE, ITEM_SCOPE],
      requiredScopes: [ENDPOINT_SCOPE],
      verify: jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: String(endpoint) }),
    });
  /**
   * The `Authorization` header of a cell, for a request to `resource`. `needsItemScope`: the request
   * uses a tool, resource or prompt that needs {@link ITEM_SCOPE}, so the missing-scope token lacks
   * that one; otherwise it lacks the endpoint's.
   */
  const headersOf = async (cell: Cell, resource: string, needsItemScope: boolean): Promise<Record<string, string>> => {
    const all = `${ENDPOINT_SCOPE} ${ITEM_SCOPE}`;
    const token = async (claims: Record<string, unknown>) => ({ authorization: `Bearer ${await sign(claims)}` });
    switch (cell) {
      case 'no token':
        return {};
      case 'wrong audience':
        return token({ sub: 'alice', aud: 'https://elsewhere.example/mcp', scope: all });
      case 'another subject':
        return token({ sub: 'bob', aud: resource, scope: all });
      case 'missing scope':
        return token({ sub: 'alice', aud: resource, scope: needsItemScope ? ENDPOINT_SCOPE : ITEM_SCOPE });
      case 'valid':
        return token({ sub: 'alice', aud: resource, scope: all });
    }
  };
  return { sign, resourceServer, headersOf };
}

/** The server every mode serves (directly, or as the upstream of a proxy): each handler notes that it ran. */
export function matrixServer(ran: string[]): McpServer {
  const server = createServer({ name: 'matrix', version: '1.0.0', tasks: true });
  server.tool({
    name: 'guarded',
    description: 'Needs the write scope.',
    inputSchema: z.object({}),
    scopes: [ITEM_SCOPE],
    handler: () => {
      ran.push('tools/call');
      return textResult('guarded ran');
    },
  });
  server.tool({
    name: 'ask',
    description: 'Asks its caller for a word, then says it.',
    scopes: [ITEM_SCOPE],
    handler: async (_args, context) => {
      const answer = await firstValueFrom(
        context.elicit({
          message: 'A word?',
          requestedSchema: { type: 'object', properties: { word: { type: 'string' } } },
        }),
      );
      ran.push(`ask answered ${String(answer.content?.word)}`);
      return textResult(`said ${String(answer.content?.word)}`);
    },
  });
  server.tool({
    name: 'slow',
    description: 'Runs as a task until cancelled.',
    execution: { taskSupport: 'optional' },
    scopes: [ITEM_SCOPE],
    handler: () => {
      ran.push('slow started');
      return NEVER;
    },
  });
  server.resource({
    uri: 'secret://doc',
    name: 'doc',
    scopes: [ITEM_SCOPE],
    read: () => {
      ran.push('resources/read');
      return { contents: [{ uri: 'secret://doc', text: 'the secret' }] };
    },
  });
  server.prompt({
    name: 'brief',
    scopes: [ITEM_SCOPE],
    handler: () => {
      ran.push('prompts/get');
      return { messages: [{ role: 'user', content: { type: 'text', text: 'brief' } }] };
    },
  });
  return server;
}

/** The `_meta` of a 2026-07-28 request from a client that declares elicitation and tasks. */
export const modernMeta = {
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } },
  [META.clientInfo]: { name: 'matrix', version: '1' },
};

/** What one request came back as: its HTTP status and its JSON-RPC body (or the events of an SSE answer). */
export interface Answer {
  readonly status: number;
  readonly error?: string | undefined;
  /** The `Mcp-Session-Id` the answer carried. */
  readonly sessionId?: string | undefined;
  readonly messages: ReadonlyArray<Record<string, unknown>>;
}

/** Reads an answer, JSON or SSE, whole. */
export async function readAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const messages: Array<Record<string, unknown>> = [];
  let error: string | undefined;
  if (type.includes('text/event-stream')) {
    for (const line of text.split('\n'))
      if (line.startsWith('data:') && line.slice(5).trim() !== '')
        messages.push(JSON.parse(line.slice(5)) as Record<string, unknown>);
  } else if (text !== '') {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (typeof body.error === 'string') error = body.error;
    else if (Array.isArray(body)) messages.push(...(body as Array<Record<string, unknown>>));
    else messages.push(body);
  }
  return { status: response.status, error, sessionId: response.headers.get('mcp-session-id') ?? undefined, messages };
}

/** The response to request `id` among an answer's messages. */
export const responseTo = (answer: Answer, id: number) => answer.messages.find((message) => message.id === id);
