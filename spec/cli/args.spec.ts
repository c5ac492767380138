import { parseArgs, parseHeader, UsageError } from '../../lib/cli/args';

const usageError = (argv: string[]): string => {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`parseArgs(${JSON.stringify(argv)}) did not throw`);
};

describe('parseArgs', () => {
  it('shows the general help with no arguments, -h, --help or help', () => {
    for (const argv of [[], ['-h'], ['--help'], ['help']])
      expect(parseArgs(argv)).toEqual({ kind: 'help', topic: 'rxmcp' });
  });

  it('shows a command help for <command> --help, anywhere in its arguments, and for help <command>', () => {
    expect(parseArgs(['proxy', '--help'])).toEqual({ kind: 'help', topic: 'proxy' });
    expect(parseArgs(['proxy', '--bogus', '-h'])).toEqual({ kind: 'help', topic: 'proxy' });
    expect(parseArgs(['connect', 'http://x/mcp', '--help'])).toEqual({ kind: 'help', topic: 'connect' });
    expect(parseArgs(['help', 'connect'])).toEqual({ kind: 'help', topic: 'connect' });
  });

  it('shows the version for --version and -v, alone or after a command', () => {
    expect(parseArgs(['--version'])).toEqual({ kind: 'version' });
    expect(parseArgs(['-v'])).toEqual({ kind: 'version' });
    expect(parseArgs(['proxy', '--version'])).toEqual({ kind: 'version' });
    expect(parseArgs(['connect', '--version'])).toEqual({ kind: 'version' });
  });

  it('parses proxy, serving on stdio by default', () => {
    expect(parseArgs(['proxy', '--config', 'servers.json'])).toEqual({
      kind: 'proxy',
      config: 'servers.json',
      serve: { kind: 'stdio' },
    });
    expect(parseArgs(['proxy', '-c', 'a.json', '--stdio'])).toEqual({
      kind: 'proxy',
      config: 'a.json',
      serve: { kind: 'stdio' },
    });
  });

  it('parses proxy --http <port>, also as --http=<port>, with 0 for a free port', () => {
    expect(parseArgs(['proxy', '--config=s.json', '--http', '0'])).toEqual({
      kind: 'proxy',
      config: 's.json',
      serve: { kind: 'http', port: 0 },
    });
    expect(parseArgs(['proxy', '--http=8080', '--config', 's.json'])).toMatchObject({
      serve: { kind: 'http', port: 8080 },
    });
  });

  it('refuses a proxy command line that cannot be run, naming what is wrong', () => {
    expect(usageError(['proxy'])).toBe('rxmcp proxy: --config <servers.json> is required');
    expect(usageError(['proxy', '--config'])).toBe('rxmcp proxy: --config needs a value');
    expect(usageError(['proxy', '--config', 's.json', '--http', '0', '--stdio'])).toBe(
      'rxmcp proxy: --http and --stdio are exclusive: pick one',
    );
    expect(usageError(['proxy', '--config', 's.json', '--http', 'abc'])).toBe(
      'rxmcp proxy: --http wants a port from 0 to 65535, not "abc"',
    );
    expect(usageError(['proxy', '--config', 's.json', '--http', '70000'])).toMatch(/not "70000"/);
    expect(usageError(['proxy', '--config', 's.json', '--verbose'])).toBe('rxmcp proxy: unknown option --verbose');
    expect(usageError(['proxy', '--config', 's.json', 'extra'])).toBe('rxmcp proxy: unexpected argument "extra"');
    expect(usageError(['proxy', '--config', 'a', '--config', 'b'])).toBe(
      'rxmcp proxy: --config is given more than once',
    );
    expect(usageError(['proxy', '--config', 's.json', '--stdio=yes'])).toBe('rxmcp proxy: --stdio takes no value');
  });

  it('parses connect with its headers, lower-cased, repeated', () => {
    expect(
      parseArgs(['connect', 'https://example.com/mcp', '--header', 'Authorization: Bearer t', '-H', 'X-A:1']),
    ).toEqual({
      kind: 'connect',
      url: new URL('https://example.com/mcp'),
      headers: { authorization: 'Bearer t', 'x-a': '1' },
      callbackPort: 0,
    });
    expect(parseArgs(['connect', 'http://127.0.0.1:1/mcp', '--callback-port', '8765'])).toMatchObject({
      callbackPort: 8765,
    });
  });

  it('refuses a connect command line that cannot be run', () => {
    expect(usageError(['connect'])).toBe('rxmcp connect: the server URL is required');
    expect(usageError(['connect', 'not a url'])).toBe('rxmcp connect: "not a url" is not a URL');
    expect(usageError(['connect', 'ftp://example.com/'])).toBe(
      'rxmcp connect: "ftp://example.com/" is not an http, https or http+unix URL',
    );
    expect(usageError(['connect', 'http://x/mcp', 'http://y/mcp'])).toBe(
      'rxmcp connect: unexpected argument "http://y/mcp"',
    );
    expect(usageError(['connect', 'http://x/mcp', '--header', 'no colon'])).toBe(
      'rxmcp connect: --header wants "Name: value", not "no colon"',
    );
    expect(usageError(['connect', 'http://x/mcp', '--config', 's.json'])).toBe(
      'rxmcp connect: unknown option --config',
    );
  });

  it('refuses an unknown command or option in one line', () => {
    expect(usageError(['serve'])).toBe('rxmcp: unknown command "serve"');
    expect(usageError(['--port', '1'])).toBe('rxmcp: unknown option --port');
    expect(usageError(['help', 'serve'])).toBe('rxmcp: unknown command "serve"');
    expect(usageError(['toString'])).toBe('rxmcp: unknown command "toString"');
  });
});

describe('parseHeader', () => {
  it('keeps colons in the value and trims around it', () => {
    expect(parseHeader('X-Url:  http://a:1/ ')).toEqual(['x-url', 'http://a:1/']);
  });

  it('refuses a header name with spaces', () => {
    expect(() => parseHeader('X Y: 1')).toThrow(UsageError);
  });
});
