import type { Logger } from 'pino';
import { lineSink, recordLogger, stringify } from './line-logger';

// rxmcp's own loggers (the silent default, handler failures to stderr, console-like adapters) are
// made without pino (./line-logger): pino is loaded only by an application that passes a pino
// logger, so that an ES module bundle of a server or client starts (newcomer issue, bundles).
let silent: Logger | undefined;

/** The logger of every factory given none: silent, one for all, made on first use. */
export function silentLogger(): Logger {
  silent ??= recordLogger('silent', () => undefined);
  return silent;
}

/**
 * The child logger a component makes once, at construction. A silent parent (or none) is returned
 * as it is: its children could never print, and a child per connection costs memory.
 */
export function childLogger(parent: LoggerOption | undefined, bindings: Record<string, unknown>): Logger {
  if (parent === undefined) return silentLogger();
  if (!isPino(parent)) return fromConsoleLike(parent).child(bindings);
  return parent.level === 'silent' ? parent : parent.child(bindings);
}

/** Whether a `logger` option is a pino logger (it has `child`) rather than a console-like one. */
function isPino(logger: LoggerOption): logger is Logger {
  return typeof (logger as Partial<Logger>).child === 'function';
}

/**
 * What a `logger` option takes: a pino logger, or a console-like one (`console` itself, or any
 * object with `error`, `warn` and `info`), which gets records of info and above.
 */
export type LoggerOption = Logger | ConsoleLike;

/** A logger with console's methods (`console` itself, or many application loggers). */
export interface ConsoleLike {
  /** Receives records at error and fatal. */
  error(...data: unknown[]): void;
  /** Receives records at warn. */
  warn(...data: unknown[]): void;
  /** Receives records at info. */
  info(...data: unknown[]): void;
  /** Receives records at debug and trace when the logger's level lets them through; `info` does without it. */
  debug?(...data: unknown[]): void;
}

const adapted = new WeakMap<object, Logger>();

/**
 * A pino logger that writes to a console-like one: each record goes to the method of its level
 * (debug and trace to `debug`, fatal to `error`) as its message and then the record. Info and above
 * by default, as a console would show.
 */
export function fromConsoleLike(target: ConsoleLike): Logger {
  let logger = adapted.get(target);
  if (logger) return logger;
  const write = (written: { level: number; msg?: string }): void => {
    // The record as a line would carry it: errors serialized, nothing shared with the caller's objects.
    const record = JSON.parse(stringify(written)) as { level: number; msg?: string };
    const method =
      record.level >= 50
        ? target.error
        : record.level >= 40
          ? target.warn
          : record.level >= 30
            ? target.info
            : (target.debug ?? target.info);
    method.call(target, record.msg ?? '', record);
  };
  logger = recordLogger('info', write);
  adapted.set(target, logger);
  return logger;
}

let stderrWarnings: Logger | undefined;

/**
 * The logger of handler failures when a factory is given no `logger`: warn and above, written to
 * stderr (never stdout, which the stdio transport keeps for protocol messages). Made on first use
 * and shared; only failures that a user needs to see go to it, so the rest of the library stays
 * silent without a logger.
 */
export function stderrWarnLogger(): Logger {
  return (stderrWarnings ??= recordLogger(
    'warn',
    lineSink((line) => process.stderr.write(line)),
  ));
}
