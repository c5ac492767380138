import { createResourceServer, jwtVerifier } from '../../lib/auth/resource-server';
import { jose } from '../../lib/auth/jose';
import { FORWARDED_HEADER, OWNER_HEADER } from '../../lib/cluster/forward';
import { ForwardProof, forwardedRequestOf, PROOF_HEADER } from '../../lib/cluster/forward-proof';
import { connectRedis } from '../../lib/cluster/redis-connection';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import { joinRedisCluster } from '../../lib/cluster/redis-cluster';
import type { RedisCluster } from '../../lib/cluster/redis-cluster';
import { createServer } from '../../lib/server/server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { restartRedisEmpty } from '../support/cluster-fixture';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';

// The seams of the cluster mode as an attacker sees them from outside: sessions keep their
// principal across processes, takeovers and a Redis restart, and a forwarded request proves it
// comes from a peer. Two cluster processes in this one process, on a real redis-server, behind a
// real resource server with ES256 tokens.
jest.setTimeout(30_000);

const RESOURCE = 'https://mcp.example/mcp';
const ISSUER = 'https://as.example';
const SECRET = 'a-forwarding-secret-of-the-test-cluster-0123456789';

let redis: RunningRedis;
let admin: RedisConnection;
let sign: (sub: string) => Promise<string>;
let verify: ReturnType<typeof jwtVerifier>;
let prefixes = 0;
const open: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis(redis.url);
  const { privateKey, publicKey } = await jose().generateKeyPair('ES256');
  verify = jwtVerifier({ keys: publicKey, issuer: ISSUER, audience: RESOURCE });
  sign = (sub) =>
    new (jose().SignJWT)({ sub, aud: RESOURCE, scope: 'mcp' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
});

afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

afterAll(async () => {
  await admin?.quit();
  await redis?.stop();
});

interface Member {
  readonly cluster: RedisCluster;
  readonly running: RunningStreamableHttpServer;
}

/** A process of a cluster (its own Redis connection) serving one tool, with auth. */
async function member(prefix: string, maxSessionsPerPrincipal?: number): Promise<Member> {
  const cluster = await joinRedisCluster({
    redis: redis.url,
    heartbeatMs: 100,
    prefix,
    forwardingSecret: SECRET,
    ...(maxSessionsPerPrincipal ? { maxSessionsPerPrincipal } : {}),
  });
  open.push(cluster);
  const server = createServer({ name: 'seams', version: '1.0.0' });
  server.tool({ name: 'whoami', handler: () => ({ content: [{ type: 'text', text: cluster.processId }] }) });
  const auth = createResourceServer({ resource: RESOURCE, authorizationServers: [ISSUER], verify });
  const running = await cluster.serve(server, { auth, enableJsonResponse: true });
  return { cluster, running };
}

async function twoMembers(maxSessionsPerPrincipal?: number): Promise<{ a: Member; b: Member; prefix: string }> {
  const prefix = `seams${(prefixes += 1)}:`;
  return {
    a: await member(prefix, maxSessionsPerPrincipal),
    b: await member(prefix, maxSessionsPerPrincipal),
    prefix,
  };
}

interface Answer {
  readonly status: number;
  readonly sessionId: string | null;
  readonly body: unknown;
}

/** POSTs one JSON-RPC message to `url` with the given token, session and extra headers. */
async function post(
  url: URL,
  message: unknown,
  options: { token?: string; session?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.session ? { 'mcp-session-id': options.session } : {}),
      ...options.headers,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, sessionId: response.headers.get('mcp-session-id'), body };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'seams', version: '1' } },
};

/** Opens a session on `url` as the caller of `token`; its id. */
async function openSession(url: URL, token: string): Promise<string> {
  const init = await post(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'seams', version: '1' } },
    },
    { token },
  );
  expect(init.status).toBe(200);
  const sessionId = init.sessionId!;
  const initialized = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { token, session: sessionId },
  );
  expect(initialized.status).toBe(202);
  return sessionId;
}

let ids = 100;
/** Calls `whoami` in `session` on `url`: the status, and the process that served it when answered. */
async function whoami(url: URL, session: string, token?: string, headers?: Record<string, string>) {
  const answer = await post(
    url,
    { jsonrpc: '2.0', id: (ids += 1), method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    { ...(token ? { token } : {}), session, ...(headers ? { headers } : {}) },
  );
  const result = (answer.body as { result?: { content?: Array<{ text?: string }> } }).result;
  return { status: answer.status, servedBy: result?.content?.[0]?.text };
}

/** Resolves with what `read` gives once it gives something, polling every 20 ms for at most 10 s. */
async function polled<T>(read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('never read within 10 s');
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** A session's record in Redis, field by field. */
async function record(prefix: string, sessionId: string): Promise<Record<string, string>> {
  const flat = (await admin.call('HGETALL', [`${prefix}s:{${sessionId}}`])) as string[];
  const fields: Record<string, string> = {};
  for (let at = 0; at + 1 < flat.length; at += 2) fields[flat[at]!] = flat[at + 1]!;
  return fields;
}

/** Makes a process unreachable as a SIGKILL would: its port refuses, its sessions are not released. */
async function kill(running: RunningStreamableHttpServer): Promise<void> {
  const closed = new Promise((done) => running.server.once('close', done));
  running.server.close();
  running.server.closeAllConnections();
  await closed;
}

describe('a cluster session keeps its principal', () => {
  it('is refused to another principal on every process, before and after its owner dies, and claimed by none but its own', async () => {
    const { a, b, prefix } = await twoMembers();
    const alice = await sign('alice');
    const bob = await sign('bob');
    const session = await openSession(a.running.url, alice);
    const opened = await record(prefix, session);
    expect(opened.owner).toBe(a.cluster.processId);
    expect(opened.principal).toBe(JSON.stringify([ISSUER, 'sub', 'alice']));

    // While its owner lives: Bob is refused on the owner and on the other process.
    expect((await whoami(a.running.url, session, bob)).status).toBe(403);
    expect((await whoami(b.running.url, session, bob)).status).toBe(403);
    expect(await whoami(b.running.url, session, alice)).toEqual({ status: 200, servedBy: a.cluster.processId });

    await kill(a.running);
    // No token, and Bob's: refused, and nothing is claimed in Redis.
    expect((await whoami(b.running.url, session)).status).toBe(401);
    expect((await record(prefix, session)).owner).toBe(a.cluster.processId);
    expect((await whoami(b.running.url, session, bob)).status).toBe(403);
    expect((await record(prefix, session)).owner).toBe(a.cluster.processId);

    // Alice goes on: her session is taken over, still hers.
    expect(await whoami(b.running.url, session, alice)).toEqual({ status: 200, servedBy: b.cluster.processId });
    const taken = await record(prefix, session);
    expect(taken.owner).toBe(b.cluster.processId);
    expect(taken.principal).toBe(JSON.stringify([ISSUER, 'sub', 'alice']));
    expect((await whoami(b.running.url, session, bob)).status).toBe(403);
    expect((await whoami(b.running.url, session)).status).toBe(401);
    expect(await whoami(b.running.url, session, alice)).toEqual({ status: 200, servedBy: b.cluster.processId });
  });
});

describe('a cluster whose Redis restarts empty', () => {
  it('registers its live sessions again, with their principal, so that every process serves them', async () => {
    const { a, b, prefix } = await twoMembers();
    const alice = await sign('alice');
    const session = await openSession(a.running.url, alice);
    redis = await restartRedisEmpty(redis);
    // Every process's connection comes back on its own (ioredis reconnects): so does the record.
    const revived = await polled(async () => {
      const found = await record(prefix, session).catch(() => ({}) as Record<string, string>);
      return found.owner === undefined ? undefined : found;
    });
    expect(revived.owner).toBe(a.cluster.processId);
    expect(revived.principal).toBe(JSON.stringify([ISSUER, 'sub', 'alice']));
    expect(revived.state).toBeDefined();
    // The other process finds it and forwards to its owner (once the owner's heartbeat is back too).
    await polled(async () =>
      (await admin.call('EXISTS', [`${prefix}p:${a.cluster.processId}`])) === 1 ? true : undefined,
    );
    expect(await whoami(b.running.url, session, alice)).toEqual({ status: 200, servedBy: a.cluster.processId });
    expect((await whoami(b.running.url, session, await sign('bob'))).status).toBe(403);
  });
});

describe('forwarding between cluster processes', () => {
  it('treats a request that only claims to be forwarded as one from outside', async () => {
    const { a, b, prefix } = await twoMembers();
    const alice = await sign('alice');
    const session = await openSession(a.running.url, alice);
    const forged = {
      [FORWARDED_HEADER]: a.cluster.processId,
      [OWNER_HEADER]: b.cluster.processId,
      [PROOF_HEADER]: `${Date.now()}.AAAA`,
    };
    // Without a token: refused before anything, claiming nothing.
    expect((await whoami(b.running.url, session, undefined, forged)).status).toBe(401);
    expect((await record(prefix, session)).owner).toBe(a.cluster.processId);
    // With a token: routed as any request, to the session's owner.
    expect(await whoami(b.running.url, session, alice, forged)).toEqual({ status: 200, servedBy: a.cluster.processId });
    // Forged headers addressed to the owner itself do not lift the principal check.
    const toOwner = { ...forged, [OWNER_HEADER]: a.cluster.processId };
    expect((await whoami(a.running.url, session, await sign('bob'), toOwner)).status).toBe(403);
  });

  it('has the owner check the token of a forwarded request with a valid proof', async () => {
    const { a, b } = await twoMembers();
    const alice = await sign('alice');
    const bob = await sign('bob');
    const session = await openSession(a.running.url, alice);
    const proof = new ForwardProof(SECRET);
    const message = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const signed = (token: string | undefined) => {
      const headers: Record<string, string> = {
        [FORWARDED_HEADER]: b.cluster.processId,
        [OWNER_HEADER]: a.cluster.processId,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      };
      const request = forwardedRequestOf(
        { method: 'POST', url: a.running.url.pathname, headers },
        session,
        b.cluster.processId,
        a.cluster.processId,
        message,
      );
      return { ...headers, [PROOF_HEADER]: proof.sign(request) };
    };
    expect((await post(a.running.url, message, { session, headers: signed(undefined) })).status).toBe(401);
    expect((await post(a.running.url, message, { session, headers: signed(bob) })).status).toBe(403);
    expect((await post(a.running.url, message, { session, headers: signed(alice) })).status).toBe(200);
  });
});

describe('a per-principal session quota', () => {
  it('refuses a principal a session past its quota on any process, and not another principal', async () => {
    const { a, b } = await twoMembers(2);
    const alice = await sign('alice');
    await openSession(a.running.url, alice);
    const second = await openSession(b.running.url, alice);
    expect((await post(a.running.url, INITIALIZE, { token: alice })).status).toBe(429);
    expect((await post(b.running.url, INITIALIZE, { token: alice })).status).toBe(429);
    await openSession(b.running.url, await sign('bob'));
    // An initialize the handler refuses opens nothing and takes no place in the quota.
    const deleted = await fetch(b.running.url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice}`, 'mcp-session-id': second, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(deleted.status).toBe(200);
    const invalid = { ...INITIALIZE, params: { protocolVersion: 1 } };
    expect((await post(a.running.url, invalid, { token: alice })).status).toBe(400);
    await openSession(a.running.url, alice);
  });
});

describe('ForwardProof', () => {
  const request = {
    method: 'POST',
    path: '/mcp',
    sessionId: 's1',
    from: 'p1',
    owner: 'p2',
    authorization: 'Bearer t',
    body: { jsonrpc: '2.0', id: 1, method: 'ping' },
  };

  it('accepts its own fresh proof, and refuses one for another request, secret or time', () => {
    let now = 1_000_000;
    const proof = new ForwardProof('secret', () => now);
    const value = proof.sign(request);
    const headers = { [PROOF_HEADER]: value };
    expect(proof.verify(headers, request)).toBe(true);
    for (const changed of [
      { ...request, method: 'DELETE' },
      { ...request, path: '/other' },
      { ...request, sessionId: 's2' },
      { ...request, from: 'p3' },
      { ...request, owner: 'p3' },
      { ...request, authorization: 'Bearer u' },
      { ...request, body: { ...request.body, method: 'tools/call' } },
      { ...request, body: undefined },
    ])
      expect(proof.verify(headers, changed)).toBe(false);
    expect(new ForwardProof('other', () => now).verify(headers, request)).toBe(false);
    expect(proof.verify({}, request)).toBe(false);
    expect(proof.verify({ [PROOF_HEADER]: 'nonsense' }, request)).toBe(false);
    now += 31_000;
    expect(proof.verify(headers, request)).toBe(false);
  });
});
