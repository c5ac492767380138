import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * Reads `stream` as UTF-8 text and pushes each line to `lines`, without its `\n` or `\r\n`. A last
 * line without a newline is pushed when the stream ends.
 */
export function readStderrLines(stream: Readable, lines: { push(line: string): void }): void {
  const text = new StringDecoder('utf8');
  let partial = '';
  const pushLines = (chunk: string): void => {
    const complete = (partial + chunk).split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
  };
  stream.on('data', (chunk: Buffer) => pushLines(text.write(chunk)));
  stream.on('end', () => {
    pushLines(text.end());
    if (partial !== '') lines.push(partial);
    partial = '';
  });
}
