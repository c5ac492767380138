import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { aggregate } from '../../lib/proxy/aggregate';
import { proxy } from '../../lib/proxy/proxy';
import type { McpServer } from '../../lib/server/server';
import type { Front, nodeFront } from './http-fronts';
import { authority, CELLS, matrixServer, responseTo, modernMeta } from './matrix-harness';
import type { Answer, Cell } from './matrix-harness';

// The rows of the combination matrix (`combination-matrix.spec.ts`, `cluster-matrix.spec.ts`):
// each serving mode behind `auth`, each operation tried by each kind of caller. Only the valid cell
// is served; every other one is refused with its status (401 for no or a foreign token, 403 for
// another user's session or a missing scope) or, where a request names another user's state inside
// a request a valid token may make, with a JSON-RPC error; and no handler runs for a refused cell.
// HTTP+SSE and WebSocket have their rows in `surfaces-auth.spec.ts`.

type Row = Record<Cell, string>;
/** The answer expected for a session's operation: 401, 401, 403 (another user's session), 403 scope, served. */
const SESSION_ROW: Row = {
  'no token': '401',
  'wrong audience': '401',
  'another subject': '403',
  'missing scope': '403 insufficient_scope',
  valid: 'served',
};

/** What the answer to a GET amounts to: served, or the status it was refused with. */
const streamOutcome = (answer: Answer): string =>
  answer.status === 200
    ? 'served'
    : answer.error === 'insufficient_scope'
      ? '403 insufficient_scope'
      : `${answer.status}`;

/** What an answer amounts to, in a word or two. */
function outcome(answer: Answer, id: number): string {
  if (answer.status >= 400)
    return answer.error === 'insufficient_scope' ? `${answer.status} insufficient_scope` : `${answer.status}`;
  const response = responseTo(answer, id);
  if (response === undefined) return `${answer.status} no answer`;
  if (response.error !== undefined) return `error ${(response.error as { code: number }).code}`;
  const result = response.result as { isError?: boolean; resultType?: string };
  if (result.isError === true) return 'tool error';
  return 'served';
}

interface Harness {
  front: Front;
  ran: string[];
  headersOf(cell: Cell, needsItemScope: boolean): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export type FrontKind = (server: McpServer, auth: Parameters<typeof nodeFront>[1]) => Promise<Front>;

/** One serving mode: its name, how it is served, and what it serves. */
export type Mode = readonly [string, FrontKind, 'direct' | 'proxy' | 'aggregate'];

/** The matrix server, direct or behind `proxy()` or `aggregate`, served by `kind` behind `auth`. */
async function harness(kind: FrontKind, composition: 'direct' | 'proxy' | 'aggregate'): Promise<Harness> {
  const ran: string[] = [];
  const { resourceServer, headersOf } = await authority();
  const upstream = matrixServer(ran);
  let client: McpClient | undefined;
  let served: McpServer = upstream;
  if (composition !== 'direct') {
    const [near, far] = createInMemoryPair();
    upstream.connect(far);
    client = await connect(near, { name: 'front', version: '1', capabilities: { elicitation: {} } });
    served = (composition === 'proxy' ? proxy(client) : aggregate({ up: client })) as unknown as McpServer;
  }
  const front = await kind(served, resourceServer);
  return {
    front,
    ran,
    headersOf: (cell, needsItemScope) => headersOf(cell, front.resource, needsItemScope),
    async close() {
      await front.close();
      client?.close();
      upstream.close();
    },
  };
}

/** Opens a 2025-11-25 session as Alice; returns its id. */
async function aliceSession(h: Harness): Promise<string> {
  return openSession(h, await h.headersOf('valid', false));
}

/** Opens a 2025-11-25 session with the credentials in `alice`; returns its id. */
async function openSession(h: Harness, alice: Record<string, string>): Promise<string> {
  const opened = await h.front.post(alice, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'alice', version: '1' } },
  });
  expect(opened.status).toBe(200);
  const sessionId = opened.sessionId!;
  const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  expect(
    (await h.front.post({ ...alice, ...session }, { jsonrpc: '2.0', method: 'notifications/initialized' })).status,
  ).toBe(202);
  return sessionId;
}

/** The requests of a session each cell sends on Alice's session; the tool, resource and prompt need the item scope. */
const SESSION_REQUESTS: ReadonlyArray<[string, Record<string, unknown>, boolean, string]> = [
  ['tools/call', { name: 'guarded', arguments: {} }, true, 'tools/call'],
  ['resources/read', { uri: 'secret://doc' }, true, 'resources/read'],
  ['prompts/get', { name: 'brief' }, true, 'prompts/get'],
];

/** Runs `request` on Alice's session once per cell (the valid one last); the row and what ran. */
async function sessionRow(
  h: Harness,
  sessionId: string,
  request: (cell: Cell, id: number) => { method: string; params: Record<string, unknown>; itemScope: boolean },
): Promise<{ row: Row; ranBy: Partial<Record<Cell, string[]>> }> {
  const row = {} as Row;
  const ranBy: Partial<Record<Cell, string[]>> = {};
  let id = 100;
  for (const cell of CELLS) {
    const { method, params, itemScope } = request(cell, ++id);
    const before = h.ran.length;
    const answer = await h.front.post(
      { ...(await h.headersOf(cell, itemScope)), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', id, method, params },
    );
    row[cell] = outcome(answer, id);
    if (h.ran.length > before) ranBy[cell] = h.ran.slice(before);
  }
  return { row, ranBy };
}

/** The rows of sessions (2025-11-25) for each of `modes`. */
export function sessionMatrix(modes: readonly Mode[]): void {
  describe.each(modes)('the combination matrix: %s (2025-11-25 sessions)', (_name, kind, composition) => {
    let h: Harness;
    beforeEach(async () => {
      h = await harness(kind, composition);
    });
    afterEach(() => h.close());

    it.each(SESSION_REQUESTS)(
      '%s: only Alice with the scope is served, and only her request runs',
      async (method, params, itemScope, ran) => {
        const sessionId = await aliceSession(h);
        // A front knows no scopes of the upstream's tools (tokens never pass upstream): there the missing
        // scope is the endpoint's own.
        const needsItemScope = itemScope && composition === 'direct';
        // aggregate names what it serves after its upstream: `up_guarded`, `up+secret://doc`.
        const named =
          composition !== 'aggregate'
            ? params
            : 'uri' in params
              ? { uri: `up+${String(params.uri)}` }
              : { ...params, name: `up_${String(params.name)}` };
        const { row, ranBy } = await sessionRow(h, sessionId, () => ({
          method,
          params: named,
          itemScope: needsItemScope,
        }));
        expect({ row, ranBy }).toEqual({ row: SESSION_ROW, ranBy: { valid: [ran] } });
      },
    );

    it('tasks/get and tasks/cancel: another user, or a caller without credentials, learns nothing of Alice’s task', async () => {
      if (composition !== 'direct') return;
      const sessionId = await aliceSession(h);
      const alice = {
        ...(await h.headersOf('valid', true)),
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      };
      const created = await h.front.post(alice, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'slow', arguments: {}, task: {} },
      });
      const { taskId } = (responseTo(created, 1)!.result as { task: { taskId: string } }).task;
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const { row, ranBy } = await sessionRow(h, sessionId, () => ({ method, params: { taskId }, itemScope: false }));
        expect({ method, row, ranBy }).toEqual({ method, row: SESSION_ROW, ranBy: {} });
      }
    });

    it('a GET on Alice’s session (her listen stream) is hers alone', async () => {
      const sessionId = await aliceSession(h);
      const row = {} as Row;
      for (const cell of CELLS) {
        const answer = await h.front.get(
          { ...(await h.headersOf(cell, false)), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
          () => true,
          150,
        );
        row[cell] = streamOutcome(answer);
      }
      expect(row).toEqual(SESSION_ROW);
    });

    it('a GET resume with Alice’s Last-Event-ID: only Alice, on her own session, gets her stream again', async () => {
      const sessionId = await aliceSession(h);
      const alice = { ...(await h.headersOf('valid', false)), 'mcp-protocol-version': '2025-11-25' };
      const first = await h.front.get({ ...alice, 'mcp-session-id': sessionId }, () => true, 150);
      expect(first.status).toBe(200);
      const [eventId] = first.ids;
      expect(eventId).toBeDefined();
      // Bob resumes on a session of his own, naming Alice's event; the others on Alice's session.
      const bobs = await openSession(h, await h.headersOf('another subject', false));
      const row = {} as Row;
      for (const cell of CELLS) {
        const session = cell === 'another subject' ? bobs : sessionId;
        const answer = await h.front.get(
          {
            ...(await h.headersOf(cell, false)),
            'mcp-session-id': session,
            'mcp-protocol-version': '2025-11-25',
            'last-event-id': eventId!,
          },
          () => true,
          150,
        );
        row[cell] = streamOutcome(answer);
      }
      expect(row).toEqual({ ...SESSION_ROW, 'another subject': '400' });
    });
  });
}

/** The rows of modern requests (2026-07-28) for each of `modes` served directly. */
export function modernMatrix(modes: readonly Mode[]): void {
  describe.each(modes.filter(([, , composition]) => composition === 'direct'))(
    'the combination matrix: %s (2026-07-28, modern)',
    (_name, kind) => {
      let h: Harness;
      beforeEach(async () => {
        h = await harness(kind, 'direct');
      });
      afterEach(() => h.close());

      const modern = async (
        cell: Cell,
        id: number,
        method: string,
        params: Record<string, unknown>,
        itemScope: boolean,
      ) => {
        // Mcp-Name mirrors the tool or prompt name, the resource URI, or the task id.
        const name = [params.name, params.uri, params.taskId].find((value) => typeof value === 'string') as
          string | undefined;
        return h.front.post(
          {
            ...(await h.headersOf(cell, itemScope)),
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': method,
            ...(name === undefined ? {} : { 'mcp-name': name }),
          },
          { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta } },
        );
      };

      it('a requestState retry: only Alice, who was asked, may answer, and only her answer runs the handler', async () => {
        const first = await modern('valid', 1, 'tools/call', { name: 'ask', arguments: {} }, true);
        const asked = responseTo(first, 1)!.result as {
          resultType: string;
          inputRequests: Record<string, unknown>;
          requestState: string;
        };
        expect(asked.resultType).toBe('input_required');
        const [key] = Object.keys(asked.inputRequests);
        const row = {} as Row;
        let id = 10;
        for (const cell of CELLS) {
          const before = h.ran.length;
          const answer = await modern(
            cell,
            ++id,
            'tools/call',
            {
              name: 'ask',
              arguments: {},
              inputResponses: { [key!]: { action: 'accept', content: { word: cell } } },
              requestState: asked.requestState,
            },
            true,
          );
          row[cell] = outcome(answer, id);
          if (cell !== 'valid') expect(h.ran.slice(before)).toEqual([]);
          else expect(h.ran.slice(before)).toEqual(['ask answered valid']);
        }
        expect(row).toEqual({ ...SESSION_ROW, 'another subject': 'error -32602' });
      });

      it('tasks/get and tasks/cancel of Alice’s task: another user gets what an unknown task gets', async () => {
        const created = await modern('valid', 1, 'tools/call', { name: 'slow', arguments: {} }, true);
        const { taskId } = responseTo(created, 1)!.result as { taskId: string };
        const unknown = outcome(await modern('valid', 2, 'tasks/get', { taskId: 'no-such-task' }, false), 2);
        expect(unknown).toMatch(/^error /);
        for (const method of ['tasks/get', 'tasks/cancel']) {
          const row = {} as Row;
          let id = 10;
          for (const cell of CELLS) row[cell] = outcome(await modern(cell, ++id, method, { taskId }, false), id);
          expect({ method, row }).toEqual({ method, row: { ...SESSION_ROW, 'another subject': unknown } });
        }
      });

      it.each([
        ['tools/call', { name: 'guarded', arguments: {} }],
        ['resources/read', { uri: 'secret://doc' }],
        ['prompts/get', { name: 'brief' }],
      ] as const)('%s needs a token for this server with the scopes it names', async (method, params) => {
        const row: Partial<Row> = {};
        const ranBy: Partial<Record<Cell, string[]>> = {};
        let id = 10;
        for (const cell of CELLS.filter((c) => c !== 'another subject')) {
          const before = h.ran.length;
          row[cell] = outcome(await modern(cell, ++id, method, params, true), id);
          if (h.ran.length > before) ranBy[cell] = h.ran.slice(before);
        }
        const { 'another subject': _bob, ...expected } = SESSION_ROW;
        expect({ row, ranBy }).toEqual({ row: expected, ranBy: { valid: [method] } });
      });
    },
  );
}
