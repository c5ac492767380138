/**
 * Load time: how long a fresh Node process takes to `require` what one role needs, rxmcp's entries
 * against the official SDK's modules for the same role. Each run is its own `node -e` process
 * (nothing cached in memory), timed from inside from the first `require` to the last.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The modules each implementation loads for a role. */
export const LOAD_ROLES = {
  'stdio-server': {
    transport: 'stdio',
    rxmcp: ['rxmcp/server', 'rxmcp/stdio'],
    official: ['@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/stdio.js'],
  },
  'http-client': {
    transport: 'http',
    rxmcp: ['rxmcp/client', 'rxmcp/http-client'],
    official: ['@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/client/streamableHttp.js'],
  },
} as const;

export type LoadRole = keyof typeof LOAD_ROLES;

/** The repository root: `rxmcp` resolves there to the built package, by its own name. */
const ROOT = resolve(__dirname, '../..');

/** Milliseconds a fresh process spends in `require` of the modules. */
export function timeLoad(modules: readonly string[]): number {
  const script =
    "const { performance } = require('node:perf_hooks'); const started = performance.now();" +
    modules.map((m) => `require(${JSON.stringify(m)});`).join('') +
    'process.stdout.write(String(performance.now() - started));';
  return Number(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }));
}
