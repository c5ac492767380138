/**
 * The options of the stdio client transport. Checked by `tsc` only (jest skips spec/types): every
 * line must compile, and every `@ts-expect-error` must stay an error.
 */
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import type { StdioClientTransportOptions } from '../../lib/transport/stdio/stdio-client-transport';

export function options(): StdioClientTransportOptions[] {
  // `process.env` as it is (NodeJS.ProcessEnv: values `string | undefined`), whole or spread.
  const whole: StdioClientTransportOptions = { command: 'node', env: process.env };
  const spread: StdioClientTransportOptions = { command: 'node', env: { ...process.env, DEBUG: 'rxmcp' } };
  const unset: StdioClientTransportOptions = { command: 'node', env: { DEBUG: undefined } };
  // @ts-expect-error: a variable's value is a string
  const notString: StdioClientTransportOptions = { command: 'node', env: { PORT: 8080 } };
  return [whole, spread, unset, notString];
}

export function start(): void {
  createStdioClientTransport({ command: 'node', env: process.env }).close();
}
