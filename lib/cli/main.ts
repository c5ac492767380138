/**
 * The `rxmcp` command: parses the command line and runs the command it names. Every failure a user
 * can cause ends in one line on stderr and an exit code: 2 for a bad command line or servers file,
 * 1 when nothing could be served.
 */
import { parseArgs, USAGE } from './args';
import type { CliCommand } from './args';
import { ConfigError, EXIT, UsageError } from './errors';
import type { CliIo } from './io';
import type * as ProxyCommand from './proxy-command';
import type * as ConnectCommand from './connect-command';
import type * as BenchCommand from './bench-command';
import { completionScript } from './completion';
import { createProgress } from './progress';
import { packageVersion } from './version';

/**
 * Runs a command. The commands load the runtime (client, server, transports) only when they run, so
 * `--help`, `--version` and a mistyped command line answer at once.
 */
function run(command: Extract<CliCommand, { kind: 'proxy' | 'connect' | 'bench' }>, io: CliIo): Promise<number> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (command.kind === 'proxy') {
    return (require('./proxy-command') as typeof ProxyCommand).runProxy(command, io);
  }
  if (command.kind === 'bench') {
    return (require('./bench-command') as typeof BenchCommand).runBenchCommand(command, io);
  }
  return (require('./connect-command') as typeof ConnectCommand).runConnect(command, io);
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** Runs the command line `argv` (without `node` and the script); resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const progress = createProgress(io.stderr);
  try {
    const command = parseArgs(argv);
    switch (command.kind) {
      case 'help':
        io.stdout.write(`${USAGE[command.topic]}\n`);
        return EXIT.ok;
      case 'version':
        io.stdout.write(`rxmcp ${packageVersion()}\n`);
        return EXIT.ok;
      case 'completion':
        io.stdout.write(completionScript(command.shell));
        return EXIT.ok;
      default:
        return await run(command, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      progress.line(`${error.message} (see rxmcp ${error.command === undefined ? '' : `${error.command} `}--help)`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      progress.error(error.message);
      return EXIT.usage;
    }
    progress.error(`unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.failed;
  }
}
