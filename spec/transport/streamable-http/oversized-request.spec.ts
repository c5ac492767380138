import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../../lib/client/client';
import { createServer } from '../../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

describe('a request body past the server’s limit (#13)', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)(
    'fails that call alone (%s); the client goes on',
    async (protocolVersion) => {
      const server = createServer({ name: 'small', version: '1' });
      server.tool({
        name: 'echo',
        description: 'echoes',
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
      });
      const running = await startStreamableHttpServer({ server, maxBodyBytes: 4096 });
      const client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        name: 'c',
        version: '1',
        protocolVersion,
      });
      try {
        for (let i = 0; i < 5; i++)
          await expect(client.promises.callTool('echo', { text: 'x'.repeat(2_000_000) })).rejects.toMatchObject({
            message: expect.stringContaining(
              'HTTP 413 Payload Too Large: the message was too large for the server (its limit is 4096 bytes)',
            ) as unknown,
            data: { httpStatus: 413, maxBodyBytes: 4096 },
          });
        expect(client.connection.state).toBe('operating');
        const small = await client.promises.callTool('echo', { text: 'still here' });
        expect(small.content).toEqual([{ type: 'text', text: 'still here' }]);
      } finally {
        const closed = firstValueFrom(client.connection.closed$);
        client.close();
        await closed;
        server.close();
        await running.close();
      }
    },
  );
});

/** A body of `chunks` chunks of 256 KiB, each produced a millisecond after the one before: still being written when the server answers. */
const trickled = (chunks: number) => {
  let left = chunks;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left-- <= 0) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, 1));
      controller.enqueue(new Uint8Array(256 * 1024).fill(0x20));
    },
  });
};

describe('a body past the limit, sent by fetch', () => {
  it.each([
    ['declared by Content-Length', () => ({ body: ' '.repeat(8 * 1024 * 1024) })],
    ['chunked, still being written', () => ({ body: trickled(40), duplex: 'half' as const })],
  ])('is answered 413 every time, never a broken pipe (%s)', async (_name, body) => {
    const server = createServer({ name: 'small', version: '1' });
    const running = await startStreamableHttpServer({ server, maxBodyBytes: 4096 });
    const statuses: Array<number | string> = [];
    try {
      for (let i = 0; i < 10; i++) {
        const answer = await fetch(running.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          ...body(),
        } as RequestInit).then(
          async (response) => {
            expect(response.headers.get('connection')).toBe('close');
            expect(await response.json()).toMatchObject({
              error: { message: 'Request body exceeds the limit of 4096 bytes', data: { maxBodyBytes: 4096 } },
            });
            return response.status;
          },
          (error: Error) => String((error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message),
        );
        statuses.push(answer);
      }
    } finally {
      server.close();
      await running.close();
    }
    expect(statuses).toEqual(Array(10).fill(413));
  });
});
