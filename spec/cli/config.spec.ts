import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, expandVariables, parseConfig, readConfig } from '../../lib/cli/config';

const parse = (config: unknown, env: Record<string, string> = {}) =>
  parseConfig('servers.json', JSON.stringify(config), env);

const configError = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('no ConfigError');
};

describe('parseConfig', () => {
  it('reads stdio and URL entries of the mcpServers format', () => {
    const upstreams = parse({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server-files', '/tmp'], env: { A: '1' }, cwd: '/srv' },
        search: { url: 'https://search.example/mcp', headers: { authorization: 'Bearer x' } },
        legacy: { url: 'http://127.0.0.1:9/sse', type: 'sse' },
        modern: { url: 'http://127.0.0.1:9/mcp', type: 'streamable-http' },
      },
    });
    expect(upstreams).toEqual([
      {
        kind: 'stdio',
        name: 'files',
        command: 'npx',
        args: ['-y', 'server-files', '/tmp'],
        env: { A: '1' },
        cwd: '/srv',
      },
      {
        kind: 'http',
        name: 'search',
        url: new URL('https://search.example/mcp'),
        headers: { authorization: 'Bearer x' },
      },
      { kind: 'sse', name: 'legacy', url: new URL('http://127.0.0.1:9/sse'), headers: {} },
      { kind: 'http', name: 'modern', url: new URL('http://127.0.0.1:9/mcp'), headers: {} },
    ]);
  });

  it('defaults args and env, keeps keys other clients add, and skips disabled entries', () => {
    const upstreams = parse({
      mcpServers: {
        a: { command: 'a', autoApprove: ['x'], timeout: 60 },
        b: { command: 'b', disabled: true },
      },
    });
    expect(upstreams).toEqual([{ kind: 'stdio', name: 'a', command: 'a', args: [], env: {}, cwd: undefined }]);
  });

  it('expands ${VAR} and ${VAR:-default} in env values and headers from the environment', () => {
    const [stdio, http] = parse(
      {
        mcpServers: {
          a: { command: 'a', env: { TOKEN: '${SECRET}', HOME_DIR: '${HOME}/x', LEVEL: '${LEVEL:-info}' } },
          b: { url: 'http://h/mcp', headers: { authorization: 'Bearer ${SECRET}' } },
        },
      },
      { SECRET: 's3', HOME: '/home/u' },
    );
    expect(stdio).toMatchObject({ env: { TOKEN: 's3', HOME_DIR: '/home/u/x', LEVEL: 'info' } });
    expect(http).toMatchObject({ headers: { authorization: 'Bearer s3' } });
  });

  it('expands variables in command, args, cwd and url too', () => {
    const [stdio, http] = parse(
      {
        mcpServers: {
          a: { command: '${BIN}/server', args: ['--root', '${ROOT}'], cwd: '${ROOT}' },
          b: { url: 'https://${HOST:-h.example}/mcp' },
        },
      },
      { BIN: '/opt/bin', ROOT: '/data' },
    );
    expect(stdio).toMatchObject({ command: '/opt/bin/server', args: ['--root', '/data'], cwd: '/data' });
    expect(http).toMatchObject({ url: new URL('https://h.example/mcp') });
    expect(configError(() => parse({ mcpServers: { a: { command: 'x', args: ['${NOPE}'] } } }))).toBe(
      'servers.json: mcpServers.a.args.0: the environment variable NOPE is not set',
    );
  });

  it('names the file, entry and variable when a referenced variable is not set', () => {
    expect(configError(() => parse({ mcpServers: { a: { command: 'a', env: { T: '${MISSING}' } } } }))).toBe(
      'servers.json: mcpServers.a.env.T: the environment variable MISSING is not set',
    );
  });

  it('names the file when it is not JSON or not an mcpServers object', () => {
    expect(configError(() => parseConfig('servers.json', '{ "mcpServers": ', {}))).toMatch(
      /^servers\.json is not valid JSON: /,
    );
    expect(configError(() => parse({ servers: {} }))).toBe(
      'servers.json: expected an object with "mcpServers": { "<name>": {...} }',
    );
    expect(configError(() => parse({ mcpServers: {} }))).toBe('servers.json: "mcpServers" lists no server to start');
  });

  it('names the file and the entry of a bad entry, and what is wrong with it', () => {
    expect(configError(() => parse({ mcpServers: { a: 'npx server' } }))).toBe(
      'servers.json: mcpServers.a: an entry is an object with "command" or "url"',
    );
    expect(configError(() => parse({ mcpServers: { a: { args: [] } } }))).toBe(
      'servers.json: mcpServers.a: an entry has either "command" or "url"',
    );
    expect(configError(() => parse({ mcpServers: { a: { command: 'x', url: 'http://h/' } } }))).toBe(
      'servers.json: mcpServers.a: an entry has either "command" or "url"',
    );
    expect(configError(() => parse({ mcpServers: { a: { command: 'x', args: 'y' } } }))).toMatch(
      /^servers\.json: mcpServers\.a: "args": /,
    );
    expect(configError(() => parse({ mcpServers: { a: { command: 'x', env: { N: 1 } } } }))).toMatch(
      /^servers\.json: mcpServers\.a: "env\.N": /,
    );
    expect(configError(() => parse({ mcpServers: { a: { url: 'http://h/', type: 'websocket' } } }))).toMatch(
      /^servers\.json: mcpServers\.a: "type": /,
    );
    expect(configError(() => parse({ mcpServers: { a: { url: 'file:///etc/passwd' } } }))).toBe(
      'servers.json: mcpServers.a: "url" must be an http or https URL, not "file:///etc/passwd"',
    );
  });

  it('refuses a name that cannot prefix tool names and resource URIs', () => {
    expect(configError(() => parse({ mcpServers: { my_files: { command: 'x' } } }))).toBe(
      'servers.json: mcpServers.my_files: the name must be letters, digits, "." and "-", starting with a letter (it prefixes tool names)',
    );
  });
});

describe('expandVariables', () => {
  it('leaves text without references alone, and uses the default for an empty variable', () => {
    expect(expandVariables('plain $HOME {x}', {}, 'w')).toBe('plain $HOME {x}');
    expect(expandVariables('${E:-d}', { E: '' }, 'w')).toBe('d');
    expect(expandVariables('${E}', { E: '' }, 'w')).toBe('');
  });
});

describe('readConfig', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rxmcp-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file', async () => {
    const file = join(dir, 'servers.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'a' } } }));
    await expect(readConfig(file, {})).resolves.toEqual([expect.objectContaining({ name: 'a' })]);
  });

  it('names a file that does not exist or is a directory', async () => {
    await expect(readConfig(join(dir, 'none.json'), {})).rejects.toThrow(
      new ConfigError(`cannot read ${join(dir, 'none.json')}: no such file`),
    );
    await expect(readConfig(dir, {})).rejects.toThrow(new ConfigError(`cannot read ${dir}: it is a directory`));
  });
});
