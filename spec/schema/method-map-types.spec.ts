/**
 * What the method map types in the runtime's surfaces: requests sent on a connection or by a client,
 * the handlers a connection runs. Checked by `tsc` (`npm run typecheck`): every line must compile,
 * and every `@ts-expect-error` must stay an error.
 */
import type { Observable } from 'rxjs';
import type { McpClient } from '../../lib/client/client-api';
import type { Connection } from '../../lib/connection/connection-api';
import type { RequestContext, RequestHandler } from '../../lib/connection/dispatcher';
import type { CreateMessageResult } from '../../lib/schema/sampling';
import type { CompleteRequestParams, CompleteResult } from '../../lib/schema/completion';
import type { CreateTaskResult } from '../../lib/schema/tasks';
import type { CallToolRequestParams, CallToolResult, ListToolsResult } from '../../lib/schema/tools';

/** Compiles only when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(_: Equal<A, B>) => undefined;

export function requestsOf(connection: Connection, client: McpClient, context: RequestContext): void {
  const _called = connection.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
  same<typeof _called, Observable<CallToolResult>>(true);
  const _listed = client.request('tools/list');
  same<typeof _listed, Observable<ListToolsResult>>(true);
  const _sampled = context.request('sampling/createMessage', { messages: [], maxTokens: 10 });
  same<typeof _sampled, Observable<CreateMessageResult>>(true);
  // Params held in a variable of the method's params type: its result still.
  const completion: CompleteRequestParams = {
    ref: { type: 'ref/prompt', name: 'p' },
    argument: { name: 'a', value: '' },
  };
  const _completed = client.request('completion/complete', completion);
  same<typeof _completed, Observable<CompleteResult>>(true);
  // Params that may ask for a task (2025-11-25): the result, or the task created instead.
  const call: CallToolRequestParams = { name: 'slow' };
  const _maybeTask = connection.request('tools/call', call);
  same<typeof _maybeTask, Observable<CallToolResult | CreateTaskResult>>(true);
  const _augmented = connection.request('tools/call', { name: 'slow', task: { ttl: 1000 } });
  same<typeof _augmented, Observable<CallToolResult | CreateTaskResult>>(true);
  // A _custom method or a method named at run time: plain records.
  const _custom = connection.request('x-acme/frobnicate', { level: 3 });
  same<typeof _custom, Observable<Record<string, unknown>>>(true);
  const named: string = 'tools/list';
  const _byName = client.request(named, {});
  same<typeof _byName, Observable<Record<string, unknown>>>(true);
  // A record of params passes as before, untyped.
  const loose: Record<string, unknown> = { name: 'echo' };
  const _looseCall = client.request('tools/call', loose);
  same<typeof _looseCall, Observable<Record<string, unknown>>>(true);
  // @ts-expect-error a client sends no sampling request
  void client.request<'sampling/createMessage'>('sampling/createMessage', { messages: [], maxTokens: 1 });
}

export function handlersOf(connection: Connection): void {
  const callTool: RequestHandler<'tools/call'> = (params) => ({ content: [{ type: 'text', text: params.name }] });
  connection.setRequestHandler('tools/call', callTool);
  connection.setRequestHandler('tools/list', (_params) => {
    same<typeof _params.cursor, string | undefined>(true);
    return { tools: [] };
  });
  // @ts-expect-error a tools/call handler answers a CallToolResult
  const wrong: RequestHandler<'tools/call'> = () => ({ contents: [] });
  void wrong;
  // An untyped handler still fits any method, and a typed one a record of untyped ones.
  const untyped: RequestHandler = (params) => ({ echoed: params });
  connection.setRequestHandler('tools/call', untyped);
  connection.setRequestHandler('x-acme/frobnicate', untyped);
  const handlers: Record<string, RequestHandler> = { 'tools/call': callTool };
  void handlers;
  // A handler that names its owner's type receives it.
  const owned: RequestHandler<'logging/setLevel', { level?: string }> = (params, _context, owner) => {
    owner.level = params.level;
  };
  void owned;
}

describe('the method map in the runtime', () => {
  it('types requests and handlers per method (checked by tsc; nothing runs here)', () => {
    expect([typeof requestsOf, typeof handlersOf]).toEqual(['function', 'function']);
  });
});
