import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as api from '../../lib/index';
import { isRxmcpError, RxmcpError, RxmcpErrorCode } from '../../lib/jsonrpc/errors';

type ErrorClass = new (...args: never[]) => Error;

/** Every entry of the package: the root and each subpath (`rxmcp/bench`, `rxmcp/auth`, ...). */
const ENTRIES = [
  resolve(__dirname, '../../lib/index'),
  ...readdirSync(resolve(__dirname, '../../lib/entries'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => resolve(__dirname, '../../lib/entries', file.slice(0, -3))),
];

/** The error classes the package's entries export, by name, each once (the abstract base aside). */
const exported = [
  ...new Map(
    ENTRIES.flatMap((entry) =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      Object.entries(require(entry) as Record<string, unknown>),
    ).filter(
      (entry): entry is [string, ErrorClass] =>
        entry[1] !== RxmcpError &&
        typeof entry[1] === 'function' &&
        (entry[1] as { prototype?: unknown }).prototype instanceof Error,
    ),
  ),
];

/** Stand-in arguments that one constructor or another takes. */
const ARGUMENTS: readonly unknown[][] = [['idle', 1, {}], ['x', ['a'], 'x'], ['x', 'x', 'x'], [1]];

/** An instance of `Class`, made with the first stand-in arguments it takes. */
function sample(Class: ErrorClass): Error {
  const make = Class as unknown as new (...args: unknown[]) => Error;
  for (const args of ARGUMENTS) {
    try {
      return new make(...args);
    } catch {
      // the next set
    }
  }
  throw new Error(`${Class.name}: no stand-in arguments fit its constructor`);
}

describe('the error family', () => {
  it('has every exported error class under RxmcpError, each with a code of its own', () => {
    expect(exported.length).toBeGreaterThan(25);
    const codes = new Map<string, string>();
    for (const [name, Class] of exported) {
      const error = sample(Class);
      expect({ name, base: error instanceof RxmcpError }).toEqual({ name, base: true });
      const code = (error as RxmcpError).errorCode;
      expect({ name, known: (Object.values(RxmcpErrorCode) as string[]).includes(code) }).toEqual({
        name,
        known: true,
      });
      expect({ name, sharedWith: codes.get(code) }).toEqual({ name, sharedWith: undefined });
      codes.set(code, name);
    }
    const unused = Object.values(RxmcpErrorCode).filter((code) => !codes.has(code));
    expect(unused).toEqual([]);
  });

  it('lists every exported error class with its code in the guide', () => {
    const guide = readFileSync(resolve(__dirname, '../../docs/errors.md'), 'utf8');
    const rows = new Map(
      [...guide.matchAll(/^\| `(\w+)` \| `([A-Z_]+)` \|/gm)].map((match) => [match[1]!, match[2]!] as const),
    );
    const missing = exported
      .map(([name, Class]) => [name, (sample(Class) as RxmcpError).errorCode] as const)
      .filter(([name, code]) => rows.get(name) !== code);
    expect(missing).toEqual([]);
  });

  it('tells rxmcp errors by their code, also from another copy of rxmcp, and nothing else', () => {
    const timeout = new api.RequestTimeoutError('idle', 5);
    expect(isRxmcpError(timeout)).toBe(true);
    expect(isRxmcpError(timeout, RxmcpErrorCode.RequestTimeout)).toBe(true);
    expect(isRxmcpError(timeout, RxmcpErrorCode.ConnectionClosed)).toBe(false);
    const fromAnotherCopy = Object.assign(new Error('closed'), { errorCode: 'CONNECTION_CLOSED' });
    expect(isRxmcpError(fromAnotherCopy, RxmcpErrorCode.ConnectionClosed)).toBe(true);
    expect(isRxmcpError(Object.assign(new Error('x'), { errorCode: 'SOMETHING_ELSE' }))).toBe(false);
    expect(isRxmcpError({ errorCode: 'TRANSPORT' })).toBe(false);
    expect(isRxmcpError(new Error('plain'))).toBe(false);
  });

  it('keeps the numeric JSON-RPC code of a wire error beside its family code', () => {
    const error = new api.JsonRpcError(api.ErrorCode.InvalidParams, 'bad');
    expect([error.code, error.errorCode]).toEqual([-32602, 'JSON_RPC']);
  });
});
