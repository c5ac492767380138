import pino from 'pino';
import { lineSink, recordLogger } from '../../lib/base/line-logger';
import type { LogRecord } from '../../lib/base/line-logger';

// rxmcp's own loggers write the records pino would: the same fields for the same calls.
describe('recordLogger', () => {
  const both = (call: (logger: pino.Logger) => void) => {
    const ours: LogRecord[] = [];
    const theirs: Array<Record<string, unknown>> = [];
    call(recordLogger('debug', (record) => void ours.push(record)).child({ component: 'c' }));
    call(
      pino(
        { level: 'debug' },
        { write: (line: string) => void theirs.push(JSON.parse(line) as Record<string, unknown>) },
      ).child({
        component: 'c',
      }),
    );
    const plain = (records: Array<Record<string, unknown>>) =>
      records.map(({ time, ...rest }) => {
        expect(typeof time).toBe('number');
        return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
      });
    return { ours: plain(ours), theirs: plain(theirs) };
  };

  it('writes what pino writes for a message, an object, an error and placeholders', () => {
    const failure = Object.assign(new Error('disk full', { cause: new Error('quota') }), { code: 'ENOSPC' });
    const { ours, theirs } = both((logger) => {
      logger.info('opened');
      logger.warn({ tool: 'x', n: 1 }, 'careful');
      logger.error({ err: failure, uri: 'test://a' }, 'read failed');
      logger.error(failure);
      logger.debug('%s of %d', 'two', 3);
      logger.trace('hidden');
    });
    expect(ours).toEqual(theirs);
    expect(ours).toHaveLength(5);
  });

  it('answers isLevelEnabled and level as pino does, and a silent one never writes', () => {
    const written: LogRecord[] = [];
    const warn = recordLogger('warn', (record) => void written.push(record));
    expect([warn.level, warn.isLevelEnabled('info'), warn.isLevelEnabled('error')]).toEqual(['warn', false, true]);
    warn.info('no');
    warn.child({ a: 1 }).warn('yes');
    expect(written.map((record) => [record.msg, record.a])).toEqual([['yes', 1]]);
    const silent = recordLogger('silent', (record) => void written.push(record));
    silent.fatal('no');
    expect(silent.child({ a: 2 })).toBe(silent);
    expect(written).toHaveLength(1);
  });

  it('writes one JSON line per record through lineSink, a cycle as "[Circular]"', () => {
    const lines: string[] = [];
    const looped: Record<string, unknown> = { name: 'loop' };
    looped.self = looped;
    recordLogger(
      'info',
      lineSink((line) => lines.push(line)),
    ).info({ looped }, 'cycle');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 30,
      msg: 'cycle',
      looped: { name: 'loop', self: '[Circular]' },
    });
  });
});
