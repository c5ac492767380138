import pino from 'pino';
import { childLogger, silentLogger } from '../../lib/base/logger';

describe('childLogger', () => {
  it('returns the shared silent logger when given none, and a silent parent as it is', () => {
    expect(childLogger(undefined, { component: 'x' })).toBe(silentLogger());
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

describe('childLogger with a console-like logger', () => {
  const fake = () => {
    const calls: Array<[string, unknown[]]> = [];
    const record =
      (method: string) =>
      (...data: unknown[]) =>
        void calls.push([method, data]);
    return {
      calls,
      logger: { error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') },
    };
  };

  it('writes each record to the method of its level, with its bindings, from info up', () => {
    const { calls, logger } = fake();
    const child = childLogger(logger as unknown as pino.Logger, { component: 'server' });
    child.debug('hidden');
    child.info('opened');
    child.warn({ tool: 'x' }, 'careful');
    child.error('failed');
    expect(calls.map(([method, [message]]) => [method, message])).toEqual([
      ['info', 'opened'],
      ['warn', 'careful'],
      ['error', 'failed'],
    ]);
    expect(calls[1]![1][1]).toMatchObject({ component: 'server', tool: 'x' });
  });
});
