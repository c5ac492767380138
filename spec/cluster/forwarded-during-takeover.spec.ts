import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ClusterEndpoint } from '../../lib/cluster/cluster-endpoint';
import type { ClusterEndpointOptions } from '../../lib/cluster/cluster-endpoint';
import { FORWARDED_HEADER, OWNER_HEADER } from '../../lib/cluster/forward';
import { PROOF_HEADER } from '../../lib/cluster/forward-proof';
import type { SessionRecord } from '../../lib/cluster/session-registry';

// A request another process forwards here while this process is taking the session over (the
// sender read the claim in Redis before the session was restored here) waits for the takeover and
// is served by the restored session. Served at once, it would reach a handler without the
// session, and a client takes the 404 it answers for a lost session. The registry's claim is held
// open by the test, so the window is as wide as it needs; no Redis is involved.

const SESSION = 'session-1';
const HERE = 'process-b';

/** The parts of the endpoint's cluster this test plays: a claim it settles, a handler that knows the sessions restored. */
function endpointParts() {
  const sessions = new Map<string, object>();
  let settleClaim!: (epoch: number) => void;
  const claim = new Promise<number>((resolve) => (settleClaim = resolve));
  let claims = 0;
  const record: SessionRecord = {
    owner: 'process-a',
    ownerUrl: undefined,
    state: { initialized: true } as unknown as SessionRecord['state'],
    principal: '',
    epoch: 0,
    bus: '0-0',
  };
  const options = {
    processId: HERE,
    local: {
      sessions,
      handle: (_req: unknown, res: ServerResponse) => {
        const served = sessions.has(SESSION);
        res.writeHead(served ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ served }));
      },
      restoreSession: (sessionId: string) => sessions.set(sessionId, {}),
    },
    registry: {
      lookup: () => Promise.resolve(record),
      claim: () => {
        claims++;
        return claim;
      },
      principalOf: () => undefined,
      verify: () => Promise.resolve(true),
    },
    lease: { valid: true },
    maxBodyBytes: 1 << 20,
    auth: undefined,
    proof: { verify: () => true },
    resume: () => undefined,
    busPosition: () => '0-0',
    log: pino({ level: 'silent' }),
  } as unknown as ClusterEndpointOptions;
  return { options, settleClaim, claimsMade: () => claims };
}

async function serving(endpoint: ClusterEndpoint): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => endpoint.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('a request forwarded here while this process takes its session over', () => {
  it('waits for the takeover and is served by the restored session, as is the request that claimed it', async () => {
    const { options, settleClaim, claimsMade } = endpointParts();
    const running = await serving(new ClusterEndpoint(options));
    try {
      const headers = { 'content-type': 'application/json', 'mcp-session-id': SESSION };
      const claiming = fetch(running.url, { method: 'POST', headers, body: ping(1) });
      for (let wait = 0; wait < 100 && claimsMade() === 0; wait++) await new Promise((r) => setTimeout(r, 5));
      expect(claimsMade()).toBe(1);
      let forwardedDone = false;
      const forwarded = fetch(running.url, {
        method: 'POST',
        headers: { ...headers, [FORWARDED_HEADER]: 'process-c', [OWNER_HEADER]: HERE, [PROOF_HEADER]: 'signed' },
        body: ping(2),
      }).then((response) => {
        forwardedDone = true;
        return response;
      });
      await new Promise((r) => setTimeout(r, 50));
      // Still claiming: the forwarded request waits rather than reach a handler without the session.
      expect(forwardedDone).toBe(false);
      settleClaim(1);
      const [first, second] = await Promise.all([claiming, forwarded]);
      expect([first.status, await first.json()]).toEqual([200, { served: true }]);
      expect([second.status, await second.json()]).toEqual([200, { served: true }]);
      expect(claimsMade()).toBe(1);
    } finally {
      // A failed run leaves the claim open: settled here, its request ends and the server can close.
      settleClaim(1);
      await running.close();
    }
  });
});
