import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, expandVariables, parseConfig, parseProxyConfig, readConfig } from '../../lib/cli/config';

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
        policy: { namespace: 'files' },
      },
      {
        kind: 'http',
        name: 'search',
        url: new URL('https://search.example/mcp'),
        headers: { authorization: 'Bearer x' },
        policy: { namespace: 'search' },
      },
      {
        kind: 'sse',
        name: 'legacy',
        url: new URL('http://127.0.0.1:9/sse'),
        headers: {},
        policy: { namespace: 'legacy' },
      },
      {
        kind: 'http',
        name: 'modern',
        url: new URL('http://127.0.0.1:9/mcp'),
        headers: {},
        policy: { namespace: 'modern' },
      },
    ]);
  });

  it('defaults args and env, keeps keys other clients add, and skips disabled entries', () => {
    const upstreams = parse({
      mcpServers: {
        a: { command: 'a', autoApprove: ['x'], timeout: 60 },
        b: { command: 'b', disabled: true },
      },
    });
    expect(upstreams).toEqual([
      { kind: 'stdio', name: 'a', command: 'a', args: [], env: {}, cwd: undefined, policy: { namespace: 'a' } },
    ]);
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
    expect(configError(() => parse({ servers: {} }))).toBe('servers.json: "servers" lists no server to start');
    expect(configError(() => parse({ other: {} }))).toBe('servers.json: unknown key "other"');
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
      'servers.json: mcpServers.a: "url" must be an http, https or http+unix URL, not "file:///etc/passwd"',
    );
  });

  it('takes a server on a Unix socket as an http+unix URL', () => {
    expect(parse({ mcpServers: { local: { url: 'http+unix://%2Frun%2Fmcp.sock/mcp' } } })).toEqual([
      {
        kind: 'http',
        name: 'local',
        url: new URL('http+unix://%2Frun%2Fmcp.sock/mcp'),
        headers: {},
        policy: { namespace: 'local' },
      },
    ]);
  });

  it('refuses a name that cannot prefix tool names and resource URIs', () => {
    expect(configError(() => parse({ mcpServers: { '1files': { command: 'x' } } }))).toBe(
      'servers.json: mcpServers.1files: the name must be letters, digits, ".", "-" and "_", starting with a letter (it prefixes tool names)',
    );
  });

  it('namespaces a name with "_" with "-" in its place, and refuses two names that meet there', () => {
    expect(parse({ servers: { my_files: { command: 'x' } } })[0]!.policy?.namespace).toBe('my-files');
    expect(configError(() => parse({ servers: { my_files: { command: 'x' }, 'my-files': { command: 'y' } } }))).toBe(
      'servers.json: servers.my_files and servers.my-files have the same namespace "my-files"',
    );
    expect(configError(() => parse({ servers: { a: { command: 'x', namespace: 'a_b' } } }))).toMatch(
      /^servers\.json: servers\.a: "namespace": "a_b" must be letters/,
    );
    expect(configError(() => parse({ separator: '-', servers: { a: { command: 'x' } } }))).toMatch(
      /^servers\.json: "separator": "-" could be part of a namespace/,
    );
    expect(configError(() => parse({ servers: { a: { command: 'x' } }, mcpServers: { b: { command: 'y' } } }))).toMatch(
      /two names for one list/,
    );
  });

  it("reads each entry's aggregate policies and the aggregate's options", () => {
    const config = parseProxyConfig(
      'servers.json',
      JSON.stringify({
        servers: {
          files: {
            command: 'x',
            namespace: '',
            tools: {
              include: 'read_*',
              exclude: ['read_secret'],
              rename: { read_file: 'read' },
              arguments: { '*': { root: { hidden: '/srv' } }, read_file: { encoding: { default: 'utf8' } } },
            },
            prompts: { exclude: 'debug' },
            resources: { include: 'file:///srv/*' },
            sharing: 'perSession',
            reconnect: false,
            startTimeoutMs: 5000,
          },
          web: { url: 'http://127.0.0.1:9/mcp', reconnect: { initialDelayMs: 10, maxAttempts: 3 } },
        },
        separator: '__',
        collisions: 'first',
        requestTimeoutMs: 1000,
        reconnect: { maxDelayMs: 2000 },
        instructions: 'two servers',
      }),
      {},
    );
    expect(config.settings).toEqual({
      separator: '__',
      collisions: 'first',
      requestTimeoutMs: 1000,
      reconnect: { maxDelayMs: 2000 },
      instructions: 'two servers',
    });
    expect(config.upstreams.map((upstream) => upstream.policy)).toEqual([
      {
        namespace: '',
        tools: {
          include: 'read_*',
          exclude: ['read_secret'],
          rename: { read_file: 'read' },
          arguments: { '*': { root: { hidden: '/srv' } }, read_file: { encoding: { default: 'utf8' } } },
        },
        prompts: { exclude: 'debug' },
        resources: { include: 'file:///srv/*' },
        sharing: 'perSession',
        reconnect: false,
        startTimeoutMs: 5000,
      },
      { namespace: 'web', reconnect: { initialDelayMs: 10, maxAttempts: 3 } },
    ]);
  });

  it('refuses unknown keys, naming the server and the key', () => {
    expect(configError(() => parse({ servers: { a: { command: 'x', tols: {} } } }))).toBe(
      'servers.json: servers.a: unknown key "tols"',
    );
    expect(configError(() => parse({ servers: { a: { command: 'x', tools: { rename: {}, hide: [] } } } }))).toBe(
      'servers.json: servers.a: unknown key "tools.hide"',
    );
    expect(
      configError(() => parse({ servers: { a: { command: 'x', tools: { arguments: { t: { x: { value: 1 } } } } } } })),
    ).toBe(
      'servers.json: servers.a: "tools.arguments.t.x": an argument policy is { "hidden": value } or { "default": value }',
    );
    expect(configError(() => parse({ servers: { a: { url: 'http://h/', sharing: 'always' } } }))).toMatch(
      /^servers\.json: servers\.a: "sharing": /,
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
