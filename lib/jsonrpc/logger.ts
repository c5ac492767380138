import pino from 'pino';
import type { Logger } from 'pino';

/** The logger of every factory given none: silent. */
export const SILENT_LOGGER: Logger = pino({ level: 'silent' });

/**
 * The child logger a component makes once, at construction. A silent parent (or none) is returned
 * as it is: its children could never print, and a child per connection costs memory.
 */
export function childLogger(parent: Logger | undefined, bindings: Record<string, unknown>): Logger {
  if (parent === undefined || parent.level === 'silent') return parent ?? SILENT_LOGGER;
  return parent.child(bindings);
}
