import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCliAuth } from '../../lib/cli/oauth';

const challenge = { status: 401, wwwAuthenticate: 'Bearer', protocolVersion: '2025-11-25' };

describe('createCliAuth', () => {
  it('has no credentials and opens nothing before a server asks', async () => {
    const shown: URL[] = [];
    const auth = createCliAuth({ callbackPort: 0, show: (url) => shown.push(url) });
    await expect(auth.headers({ url: new URL('http://127.0.0.1:1/mcp'), method: 'POST' })).resolves.toEqual({});
    await auth.close();
    expect(shown).toEqual([]);
  });

  it('fails a challenge when its callback port is taken, and tries the port again at the next one', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as AddressInfo;
    // Discovery is answered 404, so a listener that did start fails the flow one step later.
    const fetch = (() => Promise.resolve(new Response('not found', { status: 404 }))) as typeof globalThis.fetch;
    const auth = createCliAuth({ callbackPort: port, show: () => undefined, fetch });
    try {
      await expect(auth.challenged(new URL('http://127.0.0.1:1/mcp'), challenge)).rejects.toThrow(/EADDRINUSE/);
      holder.close();
      await once(holder, 'close');
      await expect(auth.challenged(new URL('http://127.0.0.1:1/mcp'), challenge)).rejects.not.toThrow(/EADDRINUSE/);
    } finally {
      await auth.close();
      if (holder.listening) holder.close();
    }
  });
});
