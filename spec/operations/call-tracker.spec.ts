import pino from 'pino';
import { Writable } from 'node:stream';
import { CallTracker } from '../../lib/operations/call-tracker';
import { ServerMetrics } from '../../lib/operations/server-metrics';

// The call tracker follows requests from the message that asks to the response that answers, as
// the transport tells it: one message or a batch at a time, on a channel of its own.

/** The lines of `metrics` whose name starts with `name`. */
const lines = (metrics: ServerMetrics, name: string) =>
  metrics
    .render()
    .split('\n')
    .filter((line) => line.startsWith(name));

const call = (id: number | string, name = 'echo') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });
const ok = (id: number | string) => ({ jsonrpc: '2.0', id, result: { content: [] } });

describe('CallTracker', () => {
  afterEach(() => jest.useRealTimers());

  it('starts the requests of a message or of a batch, and ends each with its response', () => {
    const metrics = new ServerMetrics();
    const tracker = new CallTracker({ metrics });
    const channel = { sessionId: 's' };
    tracker.received(channel, call(1));
    tracker.received(channel, [call(2), { jsonrpc: '2.0', method: 'notifications/initialized' }, call('three')]);
    expect(metrics.inFlight).toBe(3);
    tracker.sent(channel, ok(1));
    tracker.sent(channel, [ok('three'), { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'no' } }]);
    expect(metrics.inFlight).toBe(0);
    expect(lines(metrics, 'mcp_requests_total')).toEqual([
      'mcp_requests_total{method="tools/call",outcome="ok"} 2',
      'mcp_requests_total{method="tools/call",outcome="error"} 1',
    ]);
  });

  it('leaves what is not a request alone: items of a batch that are no object, and a second request with an id in flight', () => {
    const metrics = new ServerMetrics();
    const tracker = new CallTracker({ metrics });
    const channel = {};
    tracker.received(channel, [null, 7, 'text', call(1)]);
    tracker.received(channel, call(1));
    expect(metrics.inFlight).toBe(1);
    // Another channel's response to the same id answers nothing here.
    tracker.sent({}, ok(1));
    expect(metrics.inFlight).toBe(1);
    tracker.sent(channel, ok(1));
    tracker.sent(channel, ok(1));
    expect(metrics.inFlight).toBe(0);
    expect(lines(metrics, 'mcp_requests_total')).toEqual(['mcp_requests_total{method="tools/call",outcome="ok"} 1']);
  });

  it('ends a request its client cancelled, and those of a channel that closed', () => {
    const metrics = new ServerMetrics();
    const tracker = new CallTracker({ metrics });
    const channel = {};
    tracker.received(channel, [call(1), call(2), call(3)]);
    tracker.received(channel, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    tracker.closed(channel);
    expect(metrics.inFlight).toBe(0);
    expect(lines(metrics, 'mcp_requests_total')).toEqual([
      'mcp_requests_total{method="tools/call",outcome="cancelled"} 1',
      'mcp_requests_total{method="tools/call",outcome="closed"} 2',
    ]);
  });

  it("times a call from its request to its response on the process's clock, which fake timers move", () => {
    jest.useFakeTimers();
    const metrics = new ServerMetrics();
    const written: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          written.push(chunk.toString());
          done();
        },
      }),
    );
    const tracker = new CallTracker({ metrics, log, upstreamOf: (name) => (name === 'echo' ? 'alpha' : undefined) });
    const channel = { sessionId: 'session-1' };
    tracker.received(channel, call(1));
    jest.advanceTimersByTime(30);
    tracker.sent(channel, ok(1));
    expect(lines(metrics, 'mcp_request_duration_seconds_bucket{method="tools/call",le="0.025"}')).toEqual([
      'mcp_request_duration_seconds_bucket{method="tools/call",le="0.025"} 0',
    ]);
    expect(lines(metrics, 'mcp_request_duration_seconds_bucket{method="tools/call",le="0.05"}')).toEqual([
      'mcp_request_duration_seconds_bucket{method="tools/call",le="0.05"} 1',
    ]);
    const line = JSON.parse(written[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      msg: 'call',
      method: 'tools/call',
      tool: 'echo',
      upstream: 'alpha',
      sessionId: 'session-1',
      outcome: 'ok',
      durationMs: 30,
    });
  });
});
