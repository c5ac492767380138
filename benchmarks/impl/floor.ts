/**
 * The floor: the least a JSON-RPC round trip can cost here. Requests and responses are
 * stringified and parsed, pending calls live in a Map, and nothing else happens: no validation,
 * no lifecycle, no timeouts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { floorAnswer } from '../servers/floor-server';
import type { CallHarness, Implementation } from '../workload';

interface Pending {
  resolve(value: unknown): void;
}

function floorClient(write: (line: string) => void) {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  const request = (method: string, params: object) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      pending.set(id, { resolve });
      write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  const receive = (line: string) => {
    const message = JSON.parse(line) as { id: number; result: unknown };
    const entry = pending.get(message.id);
    pending.delete(message.id);
    entry?.resolve(message.result);
  };
  return { request, receive };
}

function harness(request: (method: string, params: object) => Promise<unknown>, close: () => Promise<void>): CallHarness {
  return {
    call: () => request('tools/call', { name: 'echo', arguments: { text: 'hello' } }),
    callLarge: () => request('tools/call', { name: 'large', arguments: {} }),
    close,
  };
}

export const floor: Implementation = {
  name: 'floor',
  transports: ['in-memory', 'stdio'],
  async connect(kind, options) {
    if (kind === 'in-memory') {
      // Both ends in this process; each direction is a string handed over on a microtask.
      const client = floorClient((line) =>
        queueMicrotask(() => {
          const answer = floorAnswer(JSON.parse(line));
          if (answer) {
            const reply = JSON.stringify(answer);
            queueMicrotask(() => client.receive(reply));
          }
        }),
      );
      await client.request('initialize', {});
      return harness(client.request, async () => undefined);
    }
    if (kind !== 'stdio') throw new Error(`floor: no ${kind} harness`);
    const child = spawn(process.execPath, [...(options?.nodeArgs ?? []), join(__dirname, '../servers/floor-server.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
    const client = floorClient((line) => child.stdin.write(line + '\n'));
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        client.receive(buffer.slice(0, at));
        buffer = buffer.slice(at + 1);
      }
    });
    await client.request('initialize', {});
    return harness(client.request, async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    });
  },
};
