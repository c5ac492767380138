/**
 * The weights file of `rxmcp bench --mix`: a JSON array of the requests to mix, each with its
 * weight (default 1). Pure: the command reads the file, this checks what it says.
 *
 * ```json
 * [
 *   { "weight": 6, "method": "tools/call", "name": "echo", "arguments": { "text": "hi" } },
 *   { "weight": 2, "method": "resources/read", "uri": "example://motd" },
 *   { "weight": 1, "method": "tools/list" },
 *   { "weight": 1, "method": "prompts/get", "name": "explain", "arguments": { "topic": "MCP" } }
 * ]
 * ```
 */
import { BenchWorkloadError } from './workload';
import type { BenchOperation, BenchWorkload } from './workload';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One entry's operation; throws {@link BenchWorkloadError} naming the entry. */
function operationOf(entry: Record<string, unknown>, where: string): BenchOperation {
  const text = (key: string) => {
    if (typeof entry[key] !== 'string' || entry[key] === '')
      throw new BenchWorkloadError(`${where}: "${entry.method as string}" wants "${key}", a string`);
    return entry[key];
  };
  const args = entry.arguments;
  if (args !== undefined && !isObject(args)) throw new BenchWorkloadError(`${where}: "arguments" is an object`);
  switch (entry.method) {
    case 'ping':
      return { kind: 'ping' };
    case 'tools/call':
      return { kind: 'tool', name: text('name'), ...(args ? { arguments: args } : {}) };
    case 'tools/list':
    case 'resources/list':
    case 'prompts/list':
      return { kind: 'list', what: entry.method.split('/')[0] as 'tools' | 'resources' | 'prompts' };
    case 'resources/read':
      return { kind: 'read', uri: text('uri') };
    case 'prompts/get': {
      if (args && !Object.values(args).every((v) => typeof v === 'string'))
        throw new BenchWorkloadError(`${where}: a prompt's "arguments" are strings`);
      return { kind: 'prompt', name: text('name'), ...(args ? { arguments: args as Record<string, string> } : {}) };
    }
    default:
      throw new BenchWorkloadError(
        `${where}: "method" is one of ping, tools/call, tools/list, resources/list, resources/read, prompts/list, prompts/get, not ${JSON.stringify(entry.method)}`,
      );
  }
}

/** The workload of a weights file's text; throws {@link BenchWorkloadError} saying what is wrong and where. */
export function parseMix(text: string, file = 'the weights file'): BenchWorkload {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BenchWorkloadError(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new BenchWorkloadError(`${file} holds an array of requests, each { "weight", "method", ... }`);
  const entries = parsed.map((entry: unknown, i) => {
    const where = `${file}, entry ${i + 1}`;
    if (!isObject(entry)) throw new BenchWorkloadError(`${where} is not an object`);
    const weight = entry.weight ?? 1;
    if (typeof weight !== 'number' || !(weight > 0) || !Number.isFinite(weight))
      throw new BenchWorkloadError(`${where}: "weight" is a positive number, not ${JSON.stringify(entry.weight)}`);
    return { weight, operation: operationOf(entry, where) };
  });
  return { kind: 'mix', entries };
}
