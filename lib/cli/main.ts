/**
 * The `rxmcp` command: parses the command line and runs the command it names. Every failure a user
 * can cause ends in one line on stderr and an exit code: 2 for a bad command line or servers file,
 * 1 when nothing could be served.
 */
import { parseArgs, USAGE, UsageError } from './args';
import { ConfigError } from './config';
import { runConnect } from './connect-command';
import type { CliIo } from './io';
import { createProgress } from './progress';
import { EXIT, runProxy } from './proxy-command';
import { packageVersion } from './version';

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
      case 'proxy':
        return await runProxy(command, io);
      case 'connect':
        return await runConnect(command, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      progress.line(`${error.message} (see rxmcp --help)`);
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
