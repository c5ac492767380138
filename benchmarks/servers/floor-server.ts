/**
 * The floor: newline-delimited JSON-RPC with nothing but JSON.parse and JSON.stringify. It answers
 * initialize, tools/call of `echo` and `large`, and nothing else. Served over stdio when run.
 */
import { LARGE_TEXT } from '../workload';

type Message = { id?: number | string; method?: string; params?: { name?: string; arguments?: { text?: string } } };

/** Answers one parsed request; returns the response object, or undefined for a notification. */
export function floorAnswer(message: Message): object | undefined {
  if (message.id === undefined) return undefined;
  if (message.method === 'initialize') {
    return { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '1' } } };
  }
  const text = message.params?.name === 'large' ? LARGE_TEXT : (message.params?.arguments?.text ?? '');
  return { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } };
}

if (require.main === module) {
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    let out = '';
    while ((at = buffer.indexOf('\n')) >= 0) {
      const answer = floorAnswer(JSON.parse(buffer.slice(0, at)) as Message);
      buffer = buffer.slice(at + 1);
      if (answer) out += JSON.stringify(answer) + '\n';
    }
    if (out) process.stdout.write(out);
  });
  process.stdin.on('end', () => process.exit(0));
}
