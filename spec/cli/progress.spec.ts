import { causeOf, createProgress, progressLogger } from '../../lib/cli/progress';
import { TransportError } from '../../lib/jsonrpc/errors';

function output(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } };
}

describe('createProgress', () => {
  it('writes plain lines when stderr is not a terminal, and says nothing while an upstream starts', () => {
    const { written, stream } = output(false);
    const progress = createProgress(stream);
    progress.starting('files', 'stdio');
    progress.connected('files', 'stdio, 4 tools');
    progress.failed('search', 'spawn nonexistent ENOENT');
    progress.note('serving 1 upstream at http://127.0.0.1:1/mcp');
    progress.error('none could be started');
    expect(written).toEqual([
      '✓ files (stdio, 4 tools)\n',
      '✗ search: spawn nonexistent ENOENT\n',
      'rxmcp: serving 1 upstream at http://127.0.0.1:1/mcp\n',
      'rxmcp: none could be started\n',
    ]);
  });

  it('colours the marks on a terminal and shows upstreams as they start', () => {
    const { written, stream } = output(true);
    const progress = createProgress(stream);
    progress.starting('files', 'stdio');
    progress.connected('files', 'stdio, 4 tools');
    progress.failed('search', 'boom');
    expect(written).toEqual([
      '\u001b[2m… files (stdio)\u001b[0m\n',
      '\u001b[32m✓\u001b[0m files (stdio, 4 tools)\n',
      '\u001b[31m✗\u001b[0m search: boom\n',
    ]);
  });
});

describe('progressLogger', () => {
  it('passes records at its level and above as lines naming the upstream and the cause', () => {
    const { written, stream } = output(false);
    const logger = progressLogger(createProgress(stream), 'warn');
    logger.info('connection opened', { upstream: 'files' });
    logger.warn('upstream closed', { upstream: 'files', err: { message: 'exit 1' } });
    logger.warn('authorization failed', { reason: 'listen EADDRINUSE' });
    logger.error('a bug');
    expect(written).toEqual([
      'rxmcp: files: upstream closed (exit 1)\n',
      'rxmcp: authorization failed (listen EADDRINUSE)\n',
      'rxmcp: a bug\n',
    ]);
  });

  it('passes errors only at level error, and everything at info', () => {
    const quiet = output(false);
    const errorsOnly = progressLogger(createProgress(quiet.stream), 'error');
    errorsOnly.warn('transport closed');
    errorsOnly.error('failed');
    expect(quiet.written).toEqual(['rxmcp: failed\n']);
    const loud = output(false);
    const all = progressLogger(createProgress(loud.stream), 'info');
    all.info('opened');
    all.debug!('details');
    expect(loud.written).toEqual(['rxmcp: opened\n', 'rxmcp: details\n']);
  });
});

describe('causeOf', () => {
  it('names the innermost cause of a wrapped error', () => {
    const spawnError = new Error('spawn nonexistent ENOENT');
    const wrapped = new TransportError('Could not start nonexistent', { cause: spawnError });
    expect(causeOf(new Error('connect failed', { cause: wrapped }))).toBe('spawn nonexistent ENOENT');
    expect(causeOf('plain')).toBe('plain');
    // An error made in another realm (a VM context, a test sandbox) is read by its fields.
    expect(causeOf({ message: 'outer', cause: { message: 'listen EADDRINUSE' } })).toBe('listen EADDRINUSE');
  });
});
