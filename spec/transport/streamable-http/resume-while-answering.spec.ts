import type { RequestId } from '../../../lib/jsonrpc/message';
import { createInMemoryEventStore } from '../../../lib/transport/http-server/streamable-http/event-store';
import type { EventStore } from '../../../lib/transport/http-server/streamable-http/event-store';
import { messagesOf, openSession, post, readSse, startTestServer, toolCall } from './http-kit';
import type { TestHttpServer } from './http-kit';
import { eventually } from '../../support/until';

/**
 * An event store as a cluster's is: asynchronous, recording each stream's requests, and able to
 * hold its next replay, or its next storing of a response, until the test lets it go.
 */
function storeHoldingReplays() {
  const inner = createInMemoryEventStore();
  const requests = new Map<string, readonly RequestId[]>();
  const held: Array<() => void> = [];
  let holding: 'replay' | 'response' | undefined;
  const wait = () => new Promise<void>((resume) => held.push(resume));
  const store: EventStore = {
    async storeEvent(streamId, payload) {
      if (holding === 'response' && payload !== null && !Array.isArray(payload) && 'result' in payload) {
        holding = undefined;
        await wait();
      }
      return inner.storeEvent(streamId, payload);
    },
    async replayAfter(lastEventId, send) {
      if (holding === 'replay') {
        holding = undefined;
        await wait();
      }
      return inner.replayAfter(lastEventId, send);
    },
    storeRequests: async (streamId, ids) => void requests.set(streamId, ids),
    requestsOf: async (streamId) => requests.get(streamId),
  };
  return {
    store,
    holdNextReplay: () => void (holding = 'replay'),
    holdNextResponse: () => void (holding = 'response'),
    heldCount: () => held.length,
    release: () => held.splice(0).forEach((resume) => resume()),
  };
}

let server: TestHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A session with a `gate` call in flight whose POST stream the client cut; resolves with its priming event id. */
async function callCut(
  s: TestHttpServer,
  id: number,
  gate: string,
): Promise<{ sessionId: string; lastEventId: string }> {
  const sessionId = await openSession(s.url);
  const cut = new AbortController();
  const response = await post(s.url, toolCall(id, 'gate', { gate }), { 'mcp-session-id': sessionId }, cut.signal);
  const primed = await readSse(response, (seen) => seen.length >= 1);
  cut.abort();
  await eventually(() => s.connections.at(-1)!.inFlightRequests === 1);
  return { sessionId, lastEventId: primed[0]!.id! };
}

const resume = (s: TestHttpServer, sessionId: string, lastEventId: string): Promise<Response> =>
  fetch(s.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': lastEventId } });

// A cluster's call whose relaying process died was resumed on its owner while the call answered:
// the answer let go of the stream before the resumption's replay came back, so the resumption
// took the stream for one a stopped process had left owing a response, and answered it with
// "the server process handling this request stopped".
describe('a stream resumed while its call answers', () => {
  it('[transport.http.resume] gets the response, not an error for a stopped process', async () => {
    const events = storeHoldingReplays();
    server = await startTestServer({ eventStore: events.store, jsonWindowMs: 0 });
    const { sessionId, lastEventId } = await callCut(server, 21, 'r');

    events.holdNextReplay();
    const resumed = resume(server, sessionId, lastEventId);
    await eventually(() => events.heldCount() === 1);
    // The call answers while the resumption waits for its replay.
    server.release('r');
    await eventually(() => server!.connections[0]!.inFlightRequests === 0);
    events.release();

    const response = await resumed;
    expect(response.status).toBe(200);
    expect(messagesOf(await readSse(response))).toEqual([
      expect.objectContaining({ id: 21, result: { content: [{ type: 'text', text: 'gate r passed' }] } }),
    ]);
  });

  it('after the call answered, every resumption replays the response once and owes nothing', async () => {
    const events = storeHoldingReplays();
    server = await startTestServer({ eventStore: events.store, jsonWindowMs: 0 });
    const { sessionId, lastEventId } = await callCut(server, 22, 's');
    server.release('s');
    await eventually(() => server!.connections[0]!.inFlightRequests === 0);

    const answer = expect.objectContaining({ id: 22, result: { content: [{ type: 'text', text: 'gate s passed' }] } });
    for (let i = 0; i < 2; i++) {
      expect(messagesOf(await readSse(await resume(server, sessionId, lastEventId)))).toEqual([answer]);
    }
  });

  it('a session closed while its call’s answer is being stored still sends that answer on the call’s stream', async () => {
    const events = storeHoldingReplays();
    server = await startTestServer({ eventStore: events.store, jsonWindowMs: 0 });
    const sessionId = await openSession(server.url);
    const response = await post(server.url, toolCall(23, 'gate', { gate: 't' }), { 'mcp-session-id': sessionId });
    await eventually(() => server!.connections[0]!.inFlightRequests === 1);

    events.holdNextResponse();
    server.release('t');
    await eventually(() => events.heldCount() === 1);
    const deleted = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(200);
    events.release();

    expect(messagesOf(await readSse(response))).toEqual([
      expect.objectContaining({ id: 23, result: { content: [{ type: 'text', text: 'gate t passed' }] } }),
    ]);
  });
});
