import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { firstValueFrom } from 'rxjs';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import { createStdioServerTransport } from '../../lib/transport/stdio/stdio-server-transport';
import { describeTransportContract } from './contract';

const relay = join(__dirname, '..', 'fixtures', 'stdio-relay.js');

// The client transport spawns a real child process (a relay) whose stdin and stdout reach the
// server transport over a socket. When the server transport closes, the socket is ended: that is
// what a server process does when its transport closes (it exits).
describeTransportContract(
  'stdio client transport with a child process',
  async () => {
    const listener = createServer();
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const accepted = once(listener, 'connection') as Promise<[Socket]>;
    const client = createStdioClientTransport({
      command: process.execPath,
      args: [relay, String((listener.address() as AddressInfo).port)],
      shutdownTimeoutMs: { afterStdinCloseMs: 1000, afterSigtermMs: 1000 },
    });
    const [socket] = await accepted;
    const server = createStdioServerTransport({ stdin: socket, stdout: socket });
    server.closed$.subscribe(() => socket.end());
    return {
      client,
      server,
      injectRaw: { toClient: (text) => socket.write(text) },
      cleanup: async () => {
        client.close();
        server.close();
        await firstValueFrom(client.closed$);
        socket.destroy();
        listener.close();
      },
    };
  },
  { textFraming: true },
);

// Two server transports facing each other over in-process streams. Each side's streams are ended
// when its transport closes, as the owning process would by exiting.
describeTransportContract(
  'stdio server transport over streams',
  async () => {
    const clientToServer = new PassThrough();
    const serverToClient = new PassThrough();
    const client = createStdioServerTransport({ stdin: serverToClient, stdout: clientToServer });
    const server = createStdioServerTransport({ stdin: clientToServer, stdout: serverToClient });
    client.closed$.subscribe(() => clientToServer.end());
    server.closed$.subscribe(() => serverToClient.end());
    return {
      client,
      server,
      injectRaw: {
        toClient: (text) => serverToClient.write(text),
        toServer: (text) => clientToServer.write(text),
      },
      cleanup: async () => {
        client.close();
        server.close();
      },
    };
  },
  { textFraming: true },
);
