import { lastValueFrom } from 'rxjs';
import { clientOutbound } from '../../lib/client/middleware';
import type { RequestHandler } from '../../lib/connection/dispatcher';
import { MiddlewareStack } from '../../lib/server/middleware';

const echo: RequestHandler = (params) => ({ echoed: params });
const nothingSeen = { revision: undefined, serverInfo: undefined, sessionId: undefined };

describe('with no middleware', () => {
  it('the server serves with its handlers themselves: nothing is wrapped', () => {
    const stack = new MiddlewareStack({ 'tools/call': echo });
    expect(stack.handlers['tools/call']).toBe(echo);
  });

  it('the client’s connection gets no outbound hook', () => {
    expect(clientOutbound(undefined, nothingSeen)).toBeUndefined();
    expect(clientOutbound([], nothingSeen)).toBeUndefined();
  });

  it('use() wraps the handlers in place, for sessions already holding the record', async () => {
    const stack = new MiddlewareStack({ 'tools/call': echo });
    const record = stack.handlers;
    stack.use((request, _context, next) => next({ ...request, params: { rewritten: true } }));
    expect(record['tools/call']).not.toBe(echo);
    expect(() => stack.use(42 as never)).toThrow(TypeError);
    const context = {
      method: 'tools/call',
      requestId: 1,
      revision: '2025-11-25',
      signal: new AbortController().signal,
    };
    const output = record['tools/call']!({}, context as never, undefined);
    expect(await lastValueFrom(output as never)).toEqual({ echoed: { rewritten: true } });
  });
});
