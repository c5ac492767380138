import { execFileSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { COMMAND_TABLE, didYouMean, parseArgs } from '../../lib/cli/args';
import { completionScript } from '../../lib/cli/completion';
import type { CliIo } from '../../lib/cli/io';
import { main } from '../../lib/cli/main';

// rxmcp's help says how to use each command (usage, options, examples, the servers file, the
// environment), an unknown option is one line naming it and the help to read, and completion
// scripts offer the commands and their options.

function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let err = '';
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout,
    stderr: { isTTY: false, write: (text: string) => (err += text) },
    env: {},
    interrupted: new Promise<string>(() => undefined),
  };
  return main(argv, io).then((code) => ({ code, stdout: out, stderr: err }));
}

describe('rxmcp --help', () => {
  it('lists the commands, with examples, the servers file, the environment and the exit codes', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const { code, stdout, stderr } = await run(argv);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      expect(stdout).toMatch(/^Usage: rxmcp <command> \[options\]\n/);
      for (const section of ['Commands:', 'Options:', 'Examples:', 'Servers file', 'Environment:', 'Exit codes:'])
        expect(stdout).toContain(`\n${section}`);
      expect(stdout).toMatch(/^ {2}completion {3}print a shell completion script/m);
      expect(stdout).toMatch(/RXMCP_VERBOSE=1/);
    }
  });

  it.each([
    [
      'proxy',
      [
        'Usage: rxmcp proxy --config',
        '-c, --config <file>',
        'Examples:',
        '"mcpServers"',
        '${VAR:-default}',
        'RXMCP_VERBOSE=1',
        'Exit codes:',
      ],
    ],
    [
      'connect',
      ['Usage: rxmcp connect <url>', '-H, --header', '--callback-port', 'Examples:', 'RXMCP_VERBOSE=1', 'Exit codes:'],
    ],
    [
      'completion',
      ['Usage: rxmcp completion <bash | zsh>', 'Examples:', 'source <(rxmcp completion bash)', 'Environment: none.'],
    ],
  ])("rxmcp %s --help, -h and rxmcp help <command> print that command's help on stdout", async (command, parts) => {
    for (const argv of [
      [command, '--help'],
      [command, '-h'],
      ['help', command],
    ]) {
      const { code, stdout } = await run(argv);
      expect(code).toBe(0);
      expect(stdout.startsWith(parts[0]!)).toBe(true);
      for (const part of parts) expect(stdout).toContain(part);
    }
  });
});

describe('an unknown option', () => {
  it("is one line on stderr naming it and the command's help, with exit code 2", async () => {
    await expect(run(['proxy', '--config', 's.json', '--verbose'])).resolves.toEqual({
      code: 2,
      stdout: '',
      stderr: 'rxmcp proxy: unknown option --verbose (see rxmcp proxy --help)\n',
    });
    await expect(run(['connect', 'http://127.0.0.1:1/mcp', '-x'])).resolves.toMatchObject({
      code: 2,
      stderr: 'rxmcp connect: unknown option -x (see rxmcp connect --help)\n',
    });
    await expect(run(['--port', '1'])).resolves.toMatchObject({
      code: 2,
      stderr: 'rxmcp: unknown option --port (see rxmcp --help)\n',
    });
  });

  it('suggests the option or command that was probably meant', async () => {
    await expect(run(['proxy', '--conifg', 's.json'])).resolves.toMatchObject({
      code: 2,
      stderr: 'rxmcp proxy: unknown option --conifg (did you mean --config?) (see rxmcp proxy --help)\n',
    });
    await expect(run(['proxi'])).resolves.toMatchObject({
      stderr: 'rxmcp: unknown command "proxi" (did you mean proxy?) (see rxmcp --help)\n',
    });
    expect(didYouMean('--zzz', ['--config', '--http'])).toBe('');
  });
});

describe('rxmcp completion', () => {
  it('parses the shell, and refuses one it has no script for', () => {
    expect(parseArgs(['completion', 'bash'])).toEqual({ kind: 'completion', shell: 'bash' });
    expect(parseArgs(['completion', 'zsh'])).toEqual({ kind: 'completion', shell: 'zsh' });
    expect(() => parseArgs(['completion', 'fish'])).toThrow('rxmcp completion: no completion for "fish": bash or zsh');
    expect(() => parseArgs(['completion'])).toThrow('rxmcp completion: name the shell: bash or zsh');
  });

  it('prints the bash script on stdout, and exits 0', async () => {
    const { code, stdout, stderr } = await run(['completion', 'bash']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(completionScript('bash'));
    expect(stdout).toContain('complete -F _rxmcp rxmcp');
  });

  /** What bash completes for the words of a command line, the last one being completed. */
  function complete(words: string[]): string[] {
    const script = `${completionScript('bash')}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_rxmcp
printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', cwd: __dirname })
      .split('\n')
      .filter((line) => line !== '');
  }

  it("completes commands, then each command's options, and file names after --config (bash)", () => {
    expect(complete(['rxmcp', ''])).toEqual(['proxy', 'connect', 'bench', 'completion', 'help', '--help', '--version']);
    expect(complete(['rxmcp', 'pr'])).toEqual(['proxy']);
    expect(complete(['rxmcp', 'proxy', '--'])).toEqual([
      '--help',
      '--version',
      '--config',
      '--http',
      '--host',
      '--stdio',
      '--watch',
      '--print-schema',
      '--log-level',
      '--log-format',
    ]);
    expect(complete(['rxmcp', 'connect', 'https://x/mcp', '--c'])).toEqual(['--callback-port']);
    expect(complete(['rxmcp', 'completion', ''])).toEqual(['bash', 'zsh', '--help', '-h', '--version', '-v']);
    expect(complete(['rxmcp', 'proxy', '--config', 'help.sp'])).toEqual(['help.spec.ts']);
    expect(complete(['rxmcp', 'proxy', '--http', ''])).toEqual([]);
    expect(complete(['rxmcp', 'proxy', '--host', ''])).toEqual([]);
  });

  it('prints a zsh script offering every command and option', async () => {
    const { code, stdout } = await run(['completion', 'zsh']);
    expect(code).toBe(0);
    expect(stdout).toBe(completionScript('zsh'));
    expect(stdout.startsWith('#compdef rxmcp\n')).toBe(true);
    expect(stdout).toContain('compdef _rxmcp rxmcp');
    for (const [command, { flags }] of Object.entries(COMMAND_TABLE)) {
      expect(stdout).toContain(`    ${command})`);
      for (const name of Object.keys(flags)) expect(stdout).toContain(`--${name}`);
    }
    expect(stdout).toContain(`{-c,--config}'[the servers file]:file:_files'`);
  });
});
