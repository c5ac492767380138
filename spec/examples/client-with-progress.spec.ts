import { built, killLeftovers, runProgram, startProgram, stopProgram } from './run-example';
import type { Running } from './run-example';

// examples/client-with-progress.ts, built, run as a command against the other built examples.
describe('examples/client-with-progress', () => {
  let server: Running | undefined;
  afterEach(() => stopProgram(server));
  afterAll(killLeftovers);

  it('starts a stdio server from its command line, calls a tool and prints the result', async () => {
    const command = `${process.execPath} ${built('stdio-server.ts')}`;
    const run = await runProgram(built('client-with-progress.ts'), [command, 'add', '{"a":2,"b":40}']);
    expect(run).toEqual(expect.objectContaining({ code: 0, stdout: 'result: 42\n' }));
  });

  it('prints the progress and log messages of a call over Streamable HTTP as they come', async () => {
    server = await startProgram(built('streaming-tool.ts'), [], { env: { PORT: '0' } });
    const run = await runProgram(built('client-with-progress.ts'), [server.url, 'count', '{"to":5,"stepMs":10}']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'progress 1/5 step 1 of 5',
      'progress 2/5 step 2 of 5',
      'progress 3/5 step 3 of 5',
      'progress 4/5 step 4 of 5',
      'progress 5/5 step 5 of 5',
      'log info: {"reached":5}',
      'result: counted to 5',
      '',
    ]);
  });

  it('exits 1 with one line on stderr when the call fails', async () => {
    const command = `${process.execPath} ${built('stdio-server.ts')}`;
    const run = await runProgram(built('client-with-progress.ts'), [command, 'no_such_tool']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no_such_tool/);
  });
});
