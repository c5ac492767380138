import pino from 'pino';
import { childLogger, SILENT_LOGGER } from '../../lib/jsonrpc/logger';

describe('childLogger', () => {
  it('returns the shared silent logger when given none, and a silent parent as it is', () => {
    expect(childLogger(undefined, { component: 'x' })).toBe(SILENT_LOGGER);
    const silent = pino({ level: 'silent' });
    expect(childLogger(silent, { component: 'x' })).toBe(silent);
  });

  it('makes a child carrying the bindings of a logger that prints', () => {
    const lines: Array<Record<string, unknown>> = [];
    const parent = pino(
      { level: 'info' },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const child = childLogger(parent, { component: 'connection', connectionId: 'c1' });
    expect(child).not.toBe(parent);
    child.info('opened');
    expect(lines[0]).toMatchObject({ component: 'connection', connectionId: 'c1', msg: 'opened' });
  });
});
