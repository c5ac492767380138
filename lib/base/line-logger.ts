/**
 * The loggers rxmcp makes itself (the silent default, the stderr logger of handler failures, the
 * adapter of a console-like logger), without pino: each record is the object pino would write
 * (`level`, `time`, `pid`, `hostname`, the bindings, the merged object with `err` serialized as
 * pino does, `msg`), handed to a sink. pino itself is loaded only by an application that passes a
 * pino logger: its Node streams and worker threads would keep an ES module bundle from starting
 * (a bundle in that format cannot `require` a built-in).
 */
import type { Logger } from 'pino';
import { builtinModuleLoader } from './node-builtins';

/** pino's levels. */
export const LEVEL_VALUES = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LevelName = keyof typeof LEVEL_VALUES;
const LEVEL_NAMES = Object.keys(LEVEL_VALUES) as LevelName[];

/** One record, as pino would write it. */
export type LogRecord = Record<string, unknown> & { level: number; msg?: string };

const noop = (): void => undefined;

let host: { pid?: number; hostname?: string } | undefined;
function processFields(): { pid?: number; hostname?: string } {
  if (host !== undefined) return host;
  const pid = (globalThis as { process?: { pid?: unknown } }).process?.pid;
  let hostname: string | undefined;
  try {
    hostname = (builtinModuleLoader()?.('node:os') as { hostname(): string } | undefined)?.hostname();
  } catch {
    hostname = undefined;
  }
  host = {
    ...(typeof pid === 'number' ? { pid } : {}),
    ...(hostname !== undefined ? { hostname } : {}),
  };
  return host;
}

function isErrorLike(value: unknown): value is Error {
  return (
    value instanceof Error || (typeof value === 'object' && value !== null && 'message' in value && 'stack' in value)
  );
}

function causeOf(error: Error): Error | undefined {
  const cause = (error as { cause?: unknown }).cause;
  const value = typeof cause === 'function' ? (cause as () => unknown).call(error) : cause;
  return isErrorLike(value) ? value : undefined;
}

/** The message with each cause's after it (`outer: inner`), as pino writes it. */
function messageWithCauses(error: Error, seen = new Set<Error>()): string {
  const cause = causeOf(error);
  if (cause === undefined) return error.message || '';
  if (seen.has(error)) return `${error.message || ''}: ...`;
  seen.add(error);
  return `${error.message || ''}: ${messageWithCauses(cause, seen)}`;
}

/** The stack with each cause's after it (`caused by: …`), as pino writes it. */
function stackWithCauses(error: Error, seen = new Set<Error>()): string {
  const stack = error.stack || '';
  if (seen.has(error)) return `${stack}\ncauses have become circular...`;
  const cause = causeOf(error);
  if (cause === undefined) return stack;
  seen.add(error);
  return `${stack}\ncaused by: ${stackWithCauses(cause, seen)}`;
}

/**
 * pino's `err` serializer: type, message and stack (each with the causes'), the errors of an
 * AggregateError, and the error's other enumerable fields.
 */
export function serializeError(error: unknown, seen = new Set<unknown>()): unknown {
  if (!isErrorLike(error)) return error;
  seen.add(error);
  const out: Record<string, unknown> = {
    type: typeof error.constructor === 'function' ? error.constructor.name : error.name,
    message: messageWithCauses(error),
    stack: stackWithCauses(error),
  };
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors)) out.aggregateErrors = errors.map((inner) => serializeError(inner, seen));
  for (const key in error) {
    if (out[key] !== undefined) continue;
    const value = (error as unknown as Record<string, unknown>)[key];
    if (!isErrorLike(value)) out[key] = value;
    else if (key !== 'cause' && !seen.has(value)) out[key] = serializeError(value, seen);
  }
  seen.delete(error);
  return out;
}

/** `util.format`'s placeholders that pino applies to a message: %s %d %i %f %j %o %O and %%. */
function format(message: unknown, args: readonly unknown[]): string | undefined {
  if (message === undefined) return undefined;
  if (typeof message !== 'string') return String(message);
  if (args.length === 0) return message;
  let next = 0;
  return message.replace(/%[sdifjoO%]/g, (token) => {
    if (token === '%%') return '%';
    if (next >= args.length) return token;
    const arg = args[next++];
    switch (token) {
      case '%d':
      case '%f':
        return String(Number(arg));
      case '%i':
        return String(Number.parseInt(String(arg), 10));
      case '%j':
      case '%o':
      case '%O':
        return stringify(arg);
      default:
        return typeof arg === 'object' && arg !== null ? stringify(arg) : String(arg);
    }
  });
}

/** JSON of a record, as pino's safe stringify writes it: cycles as "[Circular]", bigints as numbers. */
export function stringify(value: unknown): string {
  const ancestors: unknown[] = [];
  return JSON.stringify(value, function (this: unknown, _key, item: unknown) {
    if (typeof item === 'bigint') return Number(item);
    if (typeof item !== 'object' || item === null) return item;
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(item)) return '[Circular]';
    ancestors.push(item);
    return item;
  });
}

/** The record pino would write for a call `logger[level](...args)` of a logger with `bindings`. */
function recordOf(level: number, bindings: Record<string, unknown>, args: readonly unknown[]): LogRecord {
  const [first, ...rest] = args;
  let merged: Record<string, unknown> = {};
  let msg: string | undefined;
  if (first instanceof Error) {
    merged = { err: first };
    msg = rest.length > 0 ? format(rest[0], rest.slice(1)) : first.message;
  } else if (typeof first === 'object' && first !== null) {
    merged = { ...(first as Record<string, unknown>) };
    msg = format(rest[0], rest.slice(1));
  } else {
    msg = format(first, rest);
  }
  if (merged.err !== undefined) merged.err = serializeError(merged.err);
  const record: LogRecord = { level, time: Date.now(), ...processFields(), ...bindings, ...merged };
  if (msg !== undefined) record.msg = msg;
  return record;
}

/**
 * A logger with pino's methods (each level, `child`, `isLevelEnabled`, `level`, `bindings`) that
 * hands each record at `level` or above to `sink`. `silent` hands none, and its children are itself.
 */
export function recordLogger(level: LevelName | 'silent', sink: (record: LogRecord) => void): Logger {
  return make(level, sink, {});
}

function make(
  level: LevelName | 'silent',
  sink: (record: LogRecord) => void,
  bindings: Record<string, unknown>,
): Logger {
  const threshold = level === 'silent' ? Number.POSITIVE_INFINITY : LEVEL_VALUES[level];
  const logger: Record<string, unknown> = {
    level,
    levelVal: threshold,
    bindings: () => ({ ...bindings }),
    isLevelEnabled: (name: string) => (LEVEL_VALUES[name as LevelName] ?? Number.POSITIVE_INFINITY) >= threshold,
    flush: noop,
    silent: noop,
  };
  logger.child =
    level === 'silent' ? () => logger : (more: Record<string, unknown>) => make(level, sink, { ...bindings, ...more });
  for (const name of LEVEL_NAMES) {
    const value = LEVEL_VALUES[name];
    logger[name] = value >= threshold ? (...args: unknown[]) => sink(recordOf(value, bindings, args)) : noop;
  }
  return logger as unknown as Logger;
}

/** A sink that writes each record as one JSON line, as pino does. */
export function lineSink(write: (line: string) => unknown): (record: LogRecord) => void {
  return (record) => void write(`${stringify(record)}\n`);
}
