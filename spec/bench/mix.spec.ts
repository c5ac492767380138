import { parseMix } from '../../lib/bench/mix';
import { describeWorkload } from '../../lib/bench/workload';

describe('parseMix', () => {
  it('reads a weights file into a mix of operations, weight 1 by default', () => {
    const mix = parseMix(
      JSON.stringify([
        { weight: 6, method: 'tools/call', name: 'echo', arguments: { text: 'hi' } },
        { weight: 2, method: 'resources/read', uri: 'example://motd' },
        { method: 'tools/list' },
        { weight: 0.5, method: 'prompts/get', name: 'explain', arguments: { topic: 'MCP' } },
        { method: 'ping' },
      ]),
    );
    expect(mix).toEqual({
      kind: 'mix',
      entries: [
        { weight: 6, operation: { kind: 'tool', name: 'echo', arguments: { text: 'hi' } } },
        { weight: 2, operation: { kind: 'read', uri: 'example://motd' } },
        { weight: 1, operation: { kind: 'list', what: 'tools' } },
        { weight: 0.5, operation: { kind: 'prompt', name: 'explain', arguments: { topic: 'MCP' } } },
        { weight: 1, operation: { kind: 'ping' } },
      ],
    });
    expect(describeWorkload(mix)).toBe(
      'mix of tools/call echo ×6, resources/read example://motd ×2, tools/list ×1, prompts/get explain ×0.5, ping ×1',
    );
  });

  it.each([
    ['{', 'w.json is not JSON'],
    ['[]', 'w.json holds an array of requests'],
    ['[1]', 'w.json, entry 1 is not an object'],
    ['[{"method":"tools/call"}]', 'w.json, entry 1: "tools/call" wants "name", a string'],
    [
      '[{"method":"ping"},{"method":"resources/read","weight":-1,"uri":"x"}]',
      'w.json, entry 2: "weight" is a positive number, not -1',
    ],
    ['[{"method":"tools/call","name":"a","arguments":[1]}]', 'w.json, entry 1: "arguments" is an object'],
    [
      '[{"method":"prompts/get","name":"p","arguments":{"n":1}}]',
      `w.json, entry 1: a prompt's "arguments" are strings`,
    ],
    ['[{"method":"sampling/createMessage"}]', 'w.json, entry 1: "method" is one of ping, tools/call'],
  ])('refuses %s: %s', (text, message) => {
    expect(() => parseMix(text, 'w.json')).toThrow(message);
  });
});
