import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { programPath } from './programs';

/** A free TCP port on 127.0.0.1 (redis-server takes no port 0: bind one, close it, pass it on). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/** A `redis-server` started for a test, with nothing saved to disk. */
export interface RunningRedis {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on a free loopback port, or on `port` (a restart in the place of one that
 * stopped); resolves once it accepts connections.
 */
export async function startRedis(port?: number): Promise<RunningRedis> {
  port ??= await freePort();
  const child = spawn(
    programPath('redis-server'),
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((done, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('Ready to accept connections')) done();
    });
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${out}`)));
  });
  child.stdout!.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
