import type { DestinationStream } from 'pino';
import type { LogLevel } from '../connection/handler-events';

/** Where a forwarded log line goes: the MCP level, the data, and the logger name (pino's `name`). */
export type ClientLogSink = (level: LogLevel, data: unknown, logger: string | undefined) => void;

/** pino's numeric levels mapped to MCP's (RFC 5424) levels. */
export function mcpLevelOf(pinoLevel: number): LogLevel {
  if (pinoLevel >= 60) return 'critical';
  if (pinoLevel >= 50) return 'error';
  if (pinoLevel >= 40) return 'warning';
  if (pinoLevel >= 30) return 'info';
  return 'debug';
}

// Fields pino adds to every line that say nothing to a client.
const DROPPED = new Set(['level', 'time', 'pid', 'hostname', 'name']);

/**
 * A pino destination that sends each log line to MCP clients as `notifications/message`: pino's
 * level becomes the MCP level (trace and debug → debug, info, warn → warning, error, fatal →
 * critical), `name` the logger, and the other fields (`msg` included) the data. A line logged while
 * one is being forwarded (the transport logging the notification it sends, say) is dropped rather
 * than forwarded in a loop. Lines that are not JSON objects are sent as text at `info`.
 * @example
 * const toClients = pino({ level: 'info' }, server.logDestination());
 * toClients.warn({ disk: '95%' }, 'running out of space');
 */
export function createClientLogDestination(sink: ClientLogSink): DestinationStream {
  let forwarding = false;
  return {
    write(line: string) {
      if (forwarding) return;
      forwarding = true;
      try {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          parsed = undefined;
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          sink('info', line.trimEnd(), undefined);
          return;
        }
        const record = parsed as Record<string, unknown>;
        const data: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(record)) if (!DROPPED.has(key)) data[key] = value;
        const level = typeof record.level === 'number' ? mcpLevelOf(record.level) : 'info';
        sink(level, data, typeof record.name === 'string' ? record.name : undefined);
      } finally {
        forwarding = false;
      }
    },
  };
}
