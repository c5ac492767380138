import { PassThrough } from 'node:stream';
import { ConfigError, parseConfig } from '../../lib/cli/config';
import type { CliIo } from '../../lib/cli/io';
import { findJsonProblem, lineAndColumn, showLine } from '../../lib/cli/json-error';
import { main } from '../../lib/cli/main';
import { writeServers } from './cli-process';

// A servers file that is not JSON is explained as a person reads it: line and column, what was
// expected there, and the line with a caret under the spot.

const configError = (text: string): string => {
  try {
    parseConfig('servers.json', text, {});
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('parseConfig did not throw');
};

describe('a servers file that is not JSON', () => {
  it('names the line and column of a trailing comma, and shows the line with a caret', () => {
    const text = '{\n  "mcpServers": {\n    "files": { "command": "npx" },\n  }\n}\n';
    expect(configError(text)).toBe(
      'servers.json is not valid JSON: line 4, column 3: expected a property name in double quotes ' +
        '(is there a comma after the last property?), found "}"\n' +
        '  4 |   }\n' +
        '    |   ^',
    );
  });

  it('points at a missing comma, a single-quoted string and a misspelt literal', () => {
    expect(configError('{"mcpServers": {"a": {"command": "x"} "b": {}}}')).toMatch(
      /^servers\.json is not valid JSON: line 1, column 39: expected "," or "}" after a property \(is a comma missing\?\), found "\\""\n/,
    );
    expect(configError("{\n  'mcpServers': {}\n}")).toMatch(
      /^servers\.json is not valid JSON: line 2, column 3: expected a property name in double quotes, found "'"\n  2 \|   'mcpServers': \{\}\n    \|   \^$/,
    );
    expect(configError('{\n "mcpServers": {\n  "a": {"disabled": tru}}}')).toMatch(
      /line 3, column 21: expected a value/,
    );
  });

  it('says where the file ends too early', () => {
    expect(configError('{ "mcpServers": ')).toBe(
      'servers.json is not valid JSON: line 1, column 17: expected a value (an object, array, string, ' +
        'number, true, false or null), found the end of the file\n' +
        '  1 | { "mcpServers": \n' +
        '    |                 ^',
    );
  });

  it('reads a file that starts with a byte order mark', () => {
    expect(parseConfig('servers.json', '\uFEFF{"mcpServers": {"a": {"command": "x"}}}', {})).toHaveLength(1);
  });

  it('is printed by rxmcp proxy on stderr, and the command exits 2', async () => {
    const servers = writeServers('{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}\n');
    let err = '';
    const io: CliIo = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: { isTTY: false, write: (text: string) => (err += text) },
      env: {},
      interrupted: new Promise<string>(() => undefined),
    };
    try {
      await expect(main(['proxy', '--config', servers.file], io)).resolves.toBe(2);
    } finally {
      servers.remove();
    }
    expect(err).toBe(
      `rxmcp: ${servers.file} is not valid JSON: line 3, column 28: expected a property name in double quotes ` +
        '(is there a comma after the last property?), found "}"\n' +
        '  3 |     "a": { "command": "x", }\n' +
        '    |                            ^\n',
    );
  });
});

describe('findJsonProblem', () => {
  it('finds nothing in valid JSON, whatever its shape', () => {
    for (const text of ['{}', '[]', ' "a\\u00e9\\n" ', '-1.5e+3', '{"a":[true,false,null,{"b":[]}]}'])
      expect(findJsonProblem(text)).toBeUndefined();
  });

  it('finds text after the value, a bad escape and a line break inside a string', () => {
    expect(findJsonProblem('{} x')).toEqual({
      offset: 3,
      message: 'expected the end of the file after the top-level value, found "x"',
    });
    expect(findJsonProblem('"a\\q"')?.offset).toBe(3);
    expect(findJsonProblem('{"a": "x\ny"}')).toMatchObject({
      offset: 8,
      message: expect.stringMatching(/cannot span lines/),
    });
  });
});

describe('lineAndColumn and showLine', () => {
  it('count from 1, and keep tabs under the caret', () => {
    expect(lineAndColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(showLine('{\n\t"a":\t-}', 8)).toBe('  2 | \t"a":\t-}\n    | \t    \t^');
  });

  it('shows a long line around the column', () => {
    const text = `${'x'.repeat(500)}!${'y'.repeat(500)}`;
    const [line, caret] = showLine(text, 500).split('\n');
    expect(line!.length).toBeLessThan(140);
    expect(line![caret!.indexOf('^')]).toBe('!');
  });
});
