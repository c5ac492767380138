import { Agent, createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDefaultRequester } from '../../../lib/transport/streamable-http/default-requester';
import type { HttpRequester } from '../../../lib/transport/streamable-http/http-requester';

let server: Server | undefined;
let requester: HttpRequester | undefined;
const seen: IncomingMessage['headers'][] = [];

async function serve(): Promise<string> {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  requester?.close();
  requester = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  seen.length = 0;
});

const post = async (made: HttpRequester) =>
  (await made.request({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).answer).text();

describe('the default requester', () => {
  it('sends the credentials of a URL that carries them (through node:http, which reads them)', async () => {
    const host = await serve();
    requester = createDefaultRequester(new URL(`http://ada:s%3Acret@${host}/mcp`), {});
    await post(requester);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('ada:s:cret').toString('base64')}`);
  });

  it('sends through a given agent', async () => {
    const host = await serve();
    const agent = new Agent({ keepAlive: true });
    const made = jest.spyOn(agent, 'createConnection');
    try {
      requester = createDefaultRequester(new URL(`http://${host}/mcp`), { agent });
      await post(requester);
      expect(made).toHaveBeenCalledTimes(1);
    } finally {
      agent.destroy();
    }
  });

  it('sends through a given fetch, and otherwise through neither fetch nor an agent', async () => {
    const host = await serve();
    const given = jest.fn((input: string | URL | Request, init?: RequestInit) => fetch(input, init));
    requester = createDefaultRequester(new URL(`http://${host}/mcp`), { fetch: given });
    await post(requester);
    expect(given).toHaveBeenCalledTimes(1);
    requester.close();
    const global = jest.spyOn(globalThis, 'fetch');
    try {
      requester = createDefaultRequester(new URL(`http://${host}/mcp`), {});
      await post(requester);
      expect(global).not.toHaveBeenCalled();
      expect(seen).toHaveLength(2);
      expect(seen[1]?.authorization).toBeUndefined();
    } finally {
      global.mockRestore();
    }
  });
});
