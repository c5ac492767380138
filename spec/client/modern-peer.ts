import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { rawPeer } from '../support/raw-peer';
import type { RawPeer } from '../support/raw-peer';

/** A request as the raw peer receives it. */
export type Frame = Record<string, unknown> & { id: string | number; method: string; params: Record<string, unknown> };

/** A client connected to a raw peer that answered `server/discover` as a modern server. */
export interface ModernPeer {
  readonly client: McpClient;
  readonly peer: RawPeer;
  /** The headers the client gave the transport with each message (what Streamable HTTP would send). */
  readonly headers: Array<{ readonly method?: string; readonly headers?: Readonly<Record<string, string>> }>;
  /** The next request the client sends (notifications are skipped). */
  nextRequest(): Promise<Frame>;
  /** Answers a request with a result; `resultType: 'complete'` is added unless the result has one. */
  reply(request: Frame, result: Record<string, unknown>): void;
  /** Answers a request with an error. */
  fail(request: Frame, code: number, message: string, data?: unknown): void;
}

/**
 * Connects a client (in auto mode) to a raw peer playing a modern server with `capabilities`,
 * answering the discovery probe. Everything after that is scripted by the test.
 */
export async function modernPeer(
  options: Partial<ClientOptions> = {},
  capabilities: Record<string, unknown> = { tools: {}, resources: { subscribe: true }, prompts: {} },
): Promise<ModernPeer> {
  const [transport, server] = createInMemoryPair();
  const peer = rawPeer(server);
  const headers: ModernPeer['headers'] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => {
    headers.push({ method: (message as { method?: string }).method, headers: sendOptions?.headers });
    send(message, sendOptions);
  };
  const connecting = connect(transport, { name: 'modern-spec', version: '1.0.0', ...options });
  const probe = (await peer.next()) as Frame;
  peer.send({
    jsonrpc: '2.0',
    id: probe.id,
    result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities, ttlMs: 0, cacheScope: 'public' },
  });
  const client = await connecting;
  return {
    client,
    peer,
    headers,
    nextRequest: async () => (await peer.nextMatching((f) => 'id' in f && 'method' in f)) as Frame,
    reply: (request, result) =>
      peer.send({ jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', ...result } }),
    fail: (request, code, message, data) =>
      peer.send({ jsonrpc: '2.0', id: request.id, error: { code, message, ...(data === undefined ? {} : { data }) } }),
  };
}
