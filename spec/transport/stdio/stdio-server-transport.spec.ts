import { MessageEncodingError } from '../../../lib/jsonrpc/errors';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { TransportError } from '../../../lib/jsonrpc/errors';
import { notification, request } from '../../../lib/jsonrpc/message';
import { createStdioServerTransport } from '../../../lib/transport/stdio/stdio-server-transport';
import { MalformedFrame } from '../../../lib/transport/transport';
import type { Transport } from '../../../lib/transport/transport';
import { nextFrames } from '../contract';

// A stdout that holds each write until the test releases it, like a pipe nobody is reading.
function slowStdout(highWaterMark: number): { stdout: Writable; writes: string[]; release(): void } {
  const writes: string[] = [];
  let held: Array<() => void> = [];
  const stdout = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      writes.push(chunk);
      held.push(callback);
    },
  });
  const release = (): void => {
    const callbacks = held;
    held = [];
    for (const callback of callbacks) callback();
  };
  return { stdout, writes, release };
}

const frameText = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe('createStdioServerTransport', () => {
  let transports: Transport[] = [];
  afterEach(() => {
    for (const transport of transports) transport.close();
    transports = [];
  });
  const make = (options: Parameters<typeof createStdioServerTransport>[0]): Transport => {
    const transport = createStdioServerTransport(options);
    transports.push(transport);
    return transport;
  };

  it('reads frames from stdin and writes newline-delimited JSON to stdout', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = make({ stdin, stdout });
    const frames = nextFrames(transport.incoming$, 3);
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"a"}\n{"jsonrpc":"2.0",');
    stdin.write('"method":"b"}\r\nnope\n');
    const [a, b, bad] = await frames;
    expect(a).toEqual(request(1, 'a'));
    expect(b).toEqual(notification('b'));
    expect(bad).toBeInstanceOf(MalformedFrame);
    transport.send(notification('out', { text: 'two\nlines' }));
    expect(stdout.read().toString()).toBe('{"jsonrpc":"2.0","method":"out","params":{"text":"two\\nlines"}}\n');
  });

  it('closes with "stdin ended" when stdin ends, after delivering a last unterminated line', async () => {
    const stdin = new PassThrough();
    const transport = make({ stdin, stdout: new PassThrough() });
    const all = lastValueFrom(transport.incoming$.pipe(toArray()));
    stdin.end('{"a":1}\n{"b":2}');
    expect(await all).toEqual([{ a: 1 }, { b: 2 }]);
    expect(await firstValueFrom(transport.closed$)).toEqual({ reason: 'stdin ended' });
  });

  it('close() stops reading but ends nothing it does not own', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = make({ stdin, stdout });
    const all = lastValueFrom(transport.incoming$.pipe(toArray()));
    transport.close();
    expect(await firstValueFrom(transport.closed$)).toEqual({ reason: 'closed locally' });
    expect(await all).toEqual([]);
    for (const event of ['data', 'end', 'close', 'error']) expect(stdin.listenerCount(event)).toBe(0);
    for (const event of ['drain', 'error']) expect(stdout.listenerCount(event)).toBe(0);
    expect(stdin.isPaused()).toBe(true);
    expect(stdin.destroyed || stdout.destroyed || stdout.writableEnded).toBe(false);
    transport.send(notification('ignored'));
    expect(stdout.read()).toBeNull();
  });

  it('leaves stdin flowing when someone else reads it too', () => {
    const stdin = new PassThrough();
    const other: Buffer[] = [];
    stdin.on('data', (chunk: Buffer) => other.push(chunk));
    const transport = make({ stdin, stdout: new PassThrough() });
    transport.close();
    expect(stdin.isPaused()).toBe(false);
    stdin.write('still read\n');
    expect(Buffer.concat(other).toString()).toBe('still read\n');
  });

  it('closes with a TransportError carrying the cause when stdout fails', async () => {
    const stdout = new PassThrough();
    const transport = make({ stdin: new PassThrough(), stdout });
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    stdout.emit('error', epipe);
    const close = await firstValueFrom(transport.closed$);
    expect(close.reason).toBe('stdout error');
    expect(close.error).toBeInstanceOf(TransportError);
    expect(close.error?.cause).toBe(epipe);
    // A failed stream that reports again must not crash the process.
    expect(() => stdout.emit('error', epipe)).not.toThrow();
  });

  it('closes with a TransportError when stdin fails', async () => {
    const stdin = new PassThrough();
    const transport = make({ stdin, stdout: new PassThrough() });
    stdin.destroy(new Error('read failed'));
    const close = await firstValueFrom(transport.closed$);
    expect(close.reason).toBe('stdin error');
    expect(close.error).toBeInstanceOf(TransportError);
  });

  it('queues frames while stdout is full and writes them in order on drain', () => {
    const { stdout, writes, release } = slowStdout(64);
    const transport = make({ stdin: new PassThrough(), stdout });
    const sent = Array.from({ length: 20 }, (_, i) => notification('n', { i, pad: 'x'.repeat(40) }));
    for (const message of sent) transport.send(message);
    // The first write fills the buffer; the rest wait in the transport, not in the stream.
    expect(stdout.writableLength).toBeLessThan(200);
    for (let round = 0; round < 10 && writes.join('').split('\n').length <= sent.length; round++) release();
    expect(frameText(writes.join('')).map((line) => JSON.parse(line))).toEqual(sent);
    expect(writes.length).toBeLessThan(sent.length);
  });

  it('writes the answers to the requests of one chunk of stdin with one write, in order', async () => {
    const { stdout, writes, release } = slowStdout(1024 * 1024);
    const stdin = new PassThrough();
    const transport = make({ stdin, stdout });
    const answered = nextFrames(transport.incoming$, 3);
    transport.incoming$.subscribe((frame) => {
      const { id } = frame as { id: number };
      transport.send({ jsonrpc: '2.0', id, result: { id } });
    });
    stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"a"}\n{"jsonrpc":"2.0","id":2,"method":"b"}\n{"jsonrpc":"2.0","id":3,"method":"c"}\n',
    );
    await answered;
    release();
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{"id":1}}\n{"jsonrpc":"2.0","id":2,"result":{"id":2}}\n{"jsonrpc":"2.0","id":3,"result":{"id":3}}\n',
    ]);
  });

  it('writes a lone message at once and joins those sent after it in the same turn', async () => {
    const { stdout, writes, release } = slowStdout(1024 * 1024);
    const transport = make({ stdin: new PassThrough(), stdout });
    transport.send(notification('first'));
    expect(writes).toEqual(['{"jsonrpc":"2.0","method":"first"}\n']);
    transport.send(notification('second'));
    transport.send(notification('third'));
    expect(writes).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","method":"first"}\n',
      '{"jsonrpc":"2.0","method":"second"}\n{"jsonrpc":"2.0","method":"third"}\n',
    ]);
  });

  describe('in a process that exits right after sending', () => {
    // The compiled transport, as a server process loads it (the interop specs use dist/ too).
    const compiled = join(
      __dirname,
      '..',
      '..',
      '..',
      'dist',
      'lib',
      'transport',
      'stdio',
      'stdio-server-transport.js',
    );
    const runServer = (body: string, input = ''): Promise<{ stdout: string; code: number | null }> =>
      new Promise((resolve, reject) => {
        const script = `const { createStdioServerTransport } = require(${JSON.stringify(compiled)});\n${body}`;
        const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
        let stdout = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => (stdout += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ stdout, code }));
        child.stdin.end(input);
      });

    it('writes every frame sent in the turn that calls process.exit()', async () => {
      const { stdout, code } = await runServer(`
        const transport = createStdioServerTransport();
        for (const method of ['a', 'b', 'c']) transport.send({ jsonrpc: '2.0', method });
        process.exit(0);
      `);
      expect(code).toBe(0);
      expect(frameText(stdout).map((line) => JSON.parse(line).method)).toEqual(['a', 'b', 'c']);
    });

    it('writes the answers made for a chunk of stdin when a handler exits while it is decoded', async () => {
      const { stdout, code } = await runServer(
        `
        const transport = createStdioServerTransport();
        transport.incoming$.subscribe((request) => {
          transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'bye' } });
          transport.send({ jsonrpc: '2.0', id: request.id, result: {} });
          process.exit(0);
        });
      `,
        '{"jsonrpc":"2.0","id":7,"method":"shutdown-now"}\n',
      );
      expect(code).toBe(0);
      expect(frameText(stdout).map((line) => JSON.parse(line))).toEqual([
        { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'bye' } },
        { jsonrpc: '2.0', id: 7, result: {} },
      ]);
    });
  });

  it('writes out frames still queued when it closes', () => {
    const { stdout, writes, release } = slowStdout(16);
    const transport = make({ stdin: new PassThrough(), stdout });
    const sent = [notification('1'), notification('2'), notification('3')];
    for (const message of sent) transport.send(message);
    transport.close();
    for (let round = 0; round < 5; round++) release();
    expect(frameText(writes.join('')).map((line) => JSON.parse(line))).toEqual(sent);
  });

  it('refuses a message that cannot be encoded with a MessageEncodingError, writes nothing of it, and stays open', async () => {
    const stdout = new PassThrough();
    const transport = make({ stdin: new PassThrough(), stdout });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => transport.send(notification('bad', cycle))).toThrow(MessageEncodingError);
    transport.send(notification('good'));
    expect(stdout.read().toString()).toBe('{"jsonrpc":"2.0","method":"good"}\n');
  });
});
