import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type * as Esbuild from 'esbuild';

const ROOT = resolve(__dirname, '../..');
const OUT = join(ROOT, '.cache', 'spec-cluster', 'cluster-child.js');
let built = false;

/**
 * Builds spec/support/cluster-child.ts from the sources into .cache (once per test file), so that
 * the processes run the code under test rather than the last build of dist/.
 */
function buildChild(): string {
  if (built) return OUT;
  mkdirSync(join(ROOT, '.cache', 'spec-cluster'), { recursive: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof Esbuild;
  esbuild.buildSync({
    entryPoints: [join(__dirname, 'cluster-child.ts')],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    packages: 'external',
    logLevel: 'error',
  });
  built = true;
  return OUT;
}

/** A cluster process started by {@link startClusterChild}. */
export interface ClusterChild {
  readonly child: ChildProcess;
  readonly url: string;
  readonly processId: string;
  /** SIGSTOP: the process freezes, its port still accepts connections. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  /** Ends the process with `signal` (default SIGKILL) and waits for its exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** What a cluster process is started with. */
export interface ClusterChildOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly heartbeatMs?: number;
}

/** Starts one cluster process (see cluster-child.ts); resolves once it serves. */
export async function startClusterChild(options: ClusterChildOptions): Promise<ClusterChild> {
  const child = spawn(process.execPath, [buildChild()], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      REDIS_URL: options.redisUrl,
      PREFIX: options.prefix,
      HEARTBEAT_MS: String(options.heartbeatMs ?? 200),
      LOG_LEVEL: process.env.CLUSTER_LOG_LEVEL ?? 'silent',
    },
  });
  const [url, processId] = await new Promise<[string, string]>((done, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const match = /listening (\S+) (\S+)/.exec(out);
      if (match) done([match[1]!, match[2]!]);
    });
    child.once('exit', (code) => fail(new Error(`the cluster process exited with ${code}: ${out}`)));
  });
  child.stdout!.resume();
  return {
    child,
    url,
    processId,
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    async stop(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGCONT');
      child.kill(signal);
      await exited;
    },
  };
}
