/**
 * The script of the browser test's page, bundled for the browser as `mcpPage`: it connects to an
 * MCP server on another origin with `connect` and the Streamable HTTP client transport, and reports
 * what it saw as plain data for the test to check.
 */
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { connect } from '../../../lib/entries/client';
import type { ToolCallEvent } from '../../../lib/entries/client';
import { createStreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';

/** What one session from the page did. */
export interface PageSession {
  readonly era: string;
  readonly revision: string;
  readonly serverName: string;
  readonly sessionId: string | undefined;
  readonly tools: readonly string[];
  readonly events: readonly (
    | { readonly type: 'progress'; readonly progress: number; readonly total?: number }
    | { readonly type: 'result'; readonly text: string }
  )[];
  readonly closeReason: string;
  /** The status of a POST with the session id after close (404: the DELETE reached the server). */
  readonly afterClose: number | undefined;
}

function plainEvent(event: ToolCallEvent): PageSession['events'][number] {
  if (event.type === 'progress')
    return { type: 'progress', progress: event.progress, ...(event.total !== undefined ? { total: event.total } : {}) };
  if (event.type === 'result') {
    const first = event.result.content[0];
    return { type: 'result', text: first?.type === 'text' ? first.text : JSON.stringify(first) };
  }
  return { type: 'result', text: `unexpected ${event.type}` };
}

/**
 * Connects to `endpoint` (pinning `protocolVersion`, or `'auto'`), lists the tools, calls
 * `test_tool_with_progress`, closes, and checks that the session is gone.
 */
export async function runSession(endpoint: string, protocolVersion: 'auto' | '2025-11-25'): Promise<PageSession> {
  const transport = createStreamableHttpClientTransport({ url: endpoint });
  const client = await connect(transport, { name: 'browser-page', version: '1.0.0', protocolVersion });
  const sessionId = transport.sessionId;
  const tools = (await firstValueFrom(client.listTools())).map((tool) => tool.name);
  const events = await lastValueFrom(client.callTool('test_tool_with_progress', {}).pipe(toArray()));
  const closed = firstValueFrom(transport.closed$);
  client.close('page done');
  const { reason } = await closed;
  return {
    era: client.era,
    revision: client.revision,
    serverName: client.serverInfo?.name ?? '',
    sessionId,
    tools,
    events: events.map(plainEvent),
    closeReason: reason,
    afterClose: sessionId === undefined ? undefined : await statusAfterClose(endpoint, sessionId),
  };
}

/** POSTs a ping with the closed session's id. */
async function statusAfterClose(endpoint: string, sessionId: string): Promise<number> {
  const answer = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'after-close', method: 'ping' }),
  });
  await answer.body?.cancel();
  return answer.status;
}

/** Tries to connect; resolves with the error's text when the browser refuses the cross-origin call. */
export async function tryConnect(endpoint: string): Promise<string> {
  const transport = createStreamableHttpClientTransport({ url: endpoint });
  try {
    const client = await connect(transport, { name: 'browser-page', version: '1.0.0', protocolVersion: '2025-11-25' });
    client.close();
    return 'connected';
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}
