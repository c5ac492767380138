import pino from 'pino';
import { createClientLogDestination, mcpLevelOf } from '../../lib/server/client-log-destination';

describe('createClientLogDestination', () => {
  it('maps pino levels to MCP levels', () => {
    expect([10, 20, 30, 40, 50, 60].map(mcpLevelOf)).toEqual([
      'debug',
      'debug',
      'info',
      'warning',
      'error',
      'critical',
    ]);
  });

  it('forwards each line with its fields, the name as logger, and drops pino bookkeeping', () => {
    const sent: unknown[] = [];
    const logger = pino(
      { name: 'db', level: 'trace' },
      createClientLogDestination((...args) => sent.push(args)),
    );
    logger.warn({ table: 'users' }, 'slow query');
    expect(sent).toEqual([['warning', { table: 'users', msg: 'slow query' }, 'db']]);
  });

  it('does not forward a line logged while one is being forwarded', () => {
    const sent: unknown[] = [];
    const holder: { logger?: pino.Logger } = {};
    const destination = createClientLogDestination((level, data) => {
      sent.push(data);
      holder.logger!.info('logged from inside the sink');
    });
    const logger = pino({ level: 'info' }, destination);
    holder.logger = logger;
    logger.info('outer');
    expect(sent).toEqual([{ msg: 'outer' }]);
  });

  it('sends text that is not JSON as an info message', () => {
    const sent: unknown[] = [];
    createClientLogDestination((...args) => sent.push(args)).write('plain text\n');
    expect(sent).toEqual([['info', 'plain text', undefined]]);
  });
});
