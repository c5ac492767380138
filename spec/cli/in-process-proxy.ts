import { PassThrough } from 'node:stream';
import { parseArgs } from '../../lib/cli/args';
import type { CliIo } from '../../lib/cli/io';
import { runProxy } from '../../lib/cli/proxy-command';
import { writeServers } from './cli-process';

// `rxmcp proxy --http 0` run in this process on a servers file, for the specs that need no built command.

/** A proxy run in-process: its endpoint, what it wrote to stderr, and how to stop it. */
export interface InProcessProxy {
  readonly url: URL;
  readonly file: string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stderr, polling; rejects after `ms`. */
  stderrMatch(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** Stops the proxy as Ctrl-C does and waits for it to exit; removes the servers file. */
  stop(): Promise<number>;
}

/** A proxy launched in-process that may not serve yet: `serving` resolves with its endpoint once it does. */
export interface LaunchedProxy extends Omit<InProcessProxy, 'url'> {
  readonly serving: Promise<URL>;
}

/** Starts `rxmcp proxy --config <file> --http 0` in-process with `env`; resolves once it serves. */
export async function startInProcessProxy(
  config: unknown,
  env: Record<string, string> = {},
  extra: readonly string[] = [],
): Promise<InProcessProxy> {
  const launched = launchInProcessProxy(config, env, extra);
  try {
    return { ...launched, url: await launched.serving };
  } catch (error) {
    await launched.stop();
    throw error;
  }
}

/** Starts `rxmcp proxy --config <file> --http 0` in-process with `env`, without waiting for it to serve. */
export function launchInProcessProxy(
  config: unknown,
  env: Record<string, string> = {},
  extra: readonly string[] = [],
): LaunchedProxy {
  const servers = writeServers(config);
  let err = '';
  let interrupt!: (signal: string) => void;
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: { isTTY: false, write: (text: string) => (err += text) },
    env,
    interrupted: new Promise<string>((resolve) => (interrupt = resolve)),
  };
  const command = parseArgs(['proxy', '--config', servers.file, '--http', '0', ...extra]);
  if (command.kind !== 'proxy') throw new Error('not a proxy command');
  const exited = runProxy(command, io);
  const stderrMatch = async (pattern: RegExp, ms = 10_000) => {
    const deadline = Date.now() + ms;
    let done = false;
    void exited.then(() => (done = true));
    for (;;) {
      const match = pattern.exec(err);
      if (match) return match;
      if (done || Date.now() > deadline) throw new Error(`no ${pattern} in the proxy's stderr:\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const stop = async () => {
    interrupt('SIGINT');
    const code = await exited;
    servers.remove();
    return code;
  };
  const serving = stderrMatch(/serving \d+ upstreams? at (\S+)\n/, 30_000).then(([, url]) => new URL(url!));
  serving.catch(() => undefined);
  return { serving, file: servers.file, stderr: () => err, stderrMatch, stop };
}
