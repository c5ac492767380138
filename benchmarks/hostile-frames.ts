/**
 * Hostile MCP frames for the fuzz tests and the soak (#13), from a seeded generator so that a
 * failure replays: malformed JSON, wrong envelopes, junk params, unknown and oversized methods,
 * stray responses, batches, and 2026-07-28 requests with broken `_meta`; and the valid requests
 * interleaved with them, each with the answer it must get.
 */

export const META_2026: Readonly<Record<string, unknown>> = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A seeded pseudo-random source in [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One hostile frame as text (what goes on the wire); `n` makes its ids unique. */
export function hostile(random: () => number, n: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const junk = pick<unknown>([null, 0, -1, 1.5, '', 'x', [], {}, [[]], { a: { b: { c: [] } } }, true, '\u0000\uffff']);
  const shapes: Array<() => unknown> = [
    () => '{"jsonrpc":"2.0","id":' + n + ',"method":"tools/list"', // cut short
    () => String.fromCharCode(...Array.from({ length: 20 }, () => Math.floor(random() * 256))),
    () => ({ jsonrpc: '1.0', id: n, method: 'ping' }),
    () => ({ jsonrpc: '2.0', id: junk, method: 'tools/call', params: { name: 'echo' } }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: junk }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'x'.repeat(Math.floor(random() * 5000)) }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'tools/call', params: junk }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'tools/call', params: { name: junk, arguments: junk } }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'resources/read', params: { uri: junk } }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'resources/read', params: { uri: `x://h${'&'.repeat(40)}#` } }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'prompts/get',
      params: { name: 'test_prompt_with_arguments', arguments: junk },
    }),
    () => ({ jsonrpc: '2.0', id: n * 7919, result: junk }),
    () => ({ jsonrpc: '2.0', id: n * 7919, error: junk }),
    () => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: junk } }),
    () => ({ jsonrpc: '2.0', method: 'notifications/progress', params: junk }),
    () => [{ jsonrpc: '2.0', id: `h${n}`, method: 'ping' }, junk],
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' }, _meta: junk },
    }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'tools/call',
      params: {
        name: 'test_input_required_result_elicitation',
        requestState: junk,
        inputResponses: junk,
        _meta: META_2026,
      },
    }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'subscriptions/listen',
      params: { notifications: junk, _meta: META_2026 },
    }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'server/discover',
      params: { _meta: { ...META_2026, 'io.modelcontextprotocol/logLevel': junk } },
    }),
  ];
  const frame = pick(shapes)();
  return typeof frame === 'string' ? frame : JSON.stringify(frame);
}

/** A valid `tools/call` of the example server's `add` tool (stateless, 2026-07-28): its frame and answer text. */
export function validCall(n: number): {
  readonly id: string;
  readonly frame: Record<string, unknown>;
  readonly text: string;
} {
  const id = `v${n}`;
  return {
    id,
    frame: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: n, b: 1 }, _meta: META_2026 },
    },
    text: String(n + 1),
  };
}

/** The text of a `tools/call` answer's first content block, if it has one. */
export function answerText(answer: Record<string, unknown>): string | undefined {
  const content = (answer.result as { content?: Array<{ text?: unknown }> } | undefined)?.content;
  const text = content?.[0]?.text;
  return typeof text === 'string' ? text : undefined;
}

/** Whether an answer is an internal error (-32603): a peer's frame reached a bug. */
export const isInternalError = (answer: Record<string, unknown>): boolean =>
  (answer.error as { code?: unknown } | undefined)?.code === -32603;
