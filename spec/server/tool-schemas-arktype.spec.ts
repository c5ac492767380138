import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

// arktype ships ES modules only, which jest here does not load: the fixture serves an arktype tool
// from dist/ (npm run build) in its own process and prints what a client saw.
const SCRIPT = resolve(__dirname, '../fixtures/arktype-tool.mjs');
const DIST = resolve(__dirname, '../../dist/lib/index.js');

describe('a tool described with arktype', () => {
  let seen: Record<string, { result?: Record<string, unknown>; error?: Record<string, unknown> }> & {
    received: unknown[];
  };
  beforeAll(() => {
    if (!existsSync(DIST)) throw new Error('run npm run build first: this spec loads dist/');
    seen = JSON.parse(execFileSync(process.execPath, [SCRIPT], { encoding: 'utf8', timeout: 30_000 })) as typeof seen;
  });

  it('lists its input and output schemas from arktype Standard JSON Schema', () => {
    const [tool] = (seen.list!.result as { tools: Array<Record<string, unknown>> }).tools;
    expect(tool!.inputSchema).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 2, description: 'City' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
      },
      required: ['city'],
    });
    expect(tool!.outputSchema).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number' } },
      required: ['city', 'days'],
    });
  });

  it('calls the handler with valid arguments, and checks its result', () => {
    expect(seen.valid!.result).toEqual({
      structuredContent: { city: 'Paris', days: 2 },
      content: [{ type: 'text', text: '{"city":"Paris","days":2}' }],
    });
    expect(seen.badOutput!.result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^Tool weather failed: its result did not match its output schema \(structuredContent\.days: /,
          ),
        },
      ],
    });
    expect(seen.received).toEqual([{ city: 'Paris', days: 2 }, { city: 'Atlantis' }]);
  });

  it('answers invalid arguments with -32602 before 2025-11-25 and an isError result after', () => {
    expect(seen.invalidLegacy!.error).toMatchObject({
      code: -32602,
      data: {
        issues: [
          { path: 'arguments.city', message: expect.stringContaining('city') },
          { path: 'arguments.days', message: expect.stringContaining('at most 7') },
        ],
      },
    });
    expect(seen.invalidModern!.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^Invalid arguments for tool weather: city: /) }],
    });
  });
});
