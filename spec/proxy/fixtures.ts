import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { Transport } from '../../lib/transport/transport';

/** What the proxy specs' clients call themselves. */
export const SPEC_CLIENT = { name: 'proxy-spec', version: '1.0.0' };

/** A 2025-11-25 client of `target` over an in-memory pair; `wrap` may stand in front of its transport. */
export async function clientOf(
  target: { connect(transport: Transport): unknown },
  wrap: (transport: Transport) => Transport = (transport) => transport,
): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  target.connect(serverSide);
  return connect(wrap(clientSide), { ...SPEC_CLIENT, protocolVersion: '2025-11-25' });
}

/** The text of a tool result's blocks, joined. */
export const textOf = (result: { content: ReadonlyArray<{ type: string; text?: unknown }> }): string =>
  result.content.map((block) => String(block.text)).join('');

/** A server whose `whoami` tool and `mem://doc` resource answer with its label. */
export function labelled(label: string): McpServer {
  const server = createServer({ name: label, version: '1.0.0' });
  server.tool({ name: 'whoami', inputSchema: z.object({}), handler: () => textResult(label) });
  server.resource({ uri: 'mem://doc', name: 'doc', text: `${label} doc` });
  return server;
}
