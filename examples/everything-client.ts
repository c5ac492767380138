/**
 * The example client: what each non-auth client scenario of the MCP conformance suite expects.
 *
 *   MCP_CONFORMANCE_SCENARIO=tools_call node dist/examples/everything-client.js http://127.0.0.1:3000/mcp
 *   MCP_CONFORMANCE_SCENARIO=initialize node dist/examples/everything-client.js node dist/examples/everything-server.js
 *
 * The last argument is the server's URL; anything else is taken as a command that starts a server
 * speaking MCP on stdio. Logs go to stderr; the exit code is 0 when the scenario ran to the end.
 */
import pino from 'pino';
import type { Logger } from 'pino';
import { connect, createStdioClientTransport, createStreamableHttpClientTransport } from '../lib/index';
import type { ClientOptions, McpClient, Transport } from '../lib/index';

const CLIENT_INFO = { name: 'rxmcp-everything-client', version: '0.1.0' } as const;

/** One scenario: the options to connect with, and what to do once connected. */
export interface Scenario {
  readonly options?: Omit<ClientOptions, 'name' | 'version'>;
  run(client: McpClient, logger: Logger): Promise<void>;
}

/** The scenarios by the name the conformance runner puts in `MCP_CONFORMANCE_SCENARIO`. */
export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  // Handshake only (offering 2025-11-25), then a clean close.
  initialize: {
    run: async () => undefined,
  },
  // List the tools, then call add_numbers.
  tools_call: {
    run: async (client, logger) => {
      const tools = await client.promises.listTools();
      logger.info({ tools: tools.map((tool) => tool.name) }, 'tools listed');
      const result = await client.promises.callTool('add_numbers', { a: 5, b: 3 });
      logger.info({ result }, 'add_numbers answered');
    },
  },
  // The server elicits a form without `mode` whose fields all have defaults; accept with the defaults.
  'elicitation-sep1034-client-defaults': {
    options: {
      elicitation: { applyDefaults: true, handler: () => ({ action: 'accept', content: {} }) },
    },
    run: async (client, logger) => {
      const result = await client.promises.callTool('test_client_elicitation_defaults', {});
      logger.info({ result }, 'test_client_elicitation_defaults answered');
    },
  },
  // The server drops the SSE stream of this call; the transport resumes it (GET with Last-Event-ID).
  'sse-retry': {
    run: async (client, logger) => {
      const result = await client.promises.callTool('test_reconnection', {});
      logger.info({ result }, 'test_reconnection answered');
    },
  },
};

/** What any other scenario gets: handshake, list the tools, close. */
const FALLBACK: Scenario = {
  run: async (client) => {
    await client.promises.listTools();
  },
};

function isHttpUrl(value: string | undefined): value is string {
  return value !== undefined && /^https?:\/\//i.test(value);
}

/**
 * The one place the transport is chosen: a URL means Streamable HTTP, anything else is the
 * command line of a stdio server.
 */
export function openTransport(args: readonly string[], logger: Logger): Transport {
  const target = args.at(-1);
  if (isHttpUrl(target)) return httpTransport(target, logger);
  const [command, ...rest] = args;
  if (command === undefined) throw new Error('usage: everything-client <server URL> | <command> [args...]');
  return createStdioClientTransport({ command, args: rest, stderr: 'inherit', logger });
}

/** Streamable HTTP to the URL exactly as given (some test servers have no `/mcp` path). */
function httpTransport(url: string, logger: Logger): Transport {
  return createStreamableHttpClientTransport({ url, logger });
}

/** Runs one scenario against a server; resolves when it is done and the connection is closed. */
export async function runScenario(name: string, transport: Transport, logger: Logger): Promise<void> {
  const scenario = SCENARIOS[name] ?? FALLBACK;
  if (!(name in SCENARIOS)) logger.warn({ scenario: name }, 'unknown scenario: connecting and listing tools only');
  const client = await connect(transport, { ...CLIENT_INFO, ...scenario.options, logger });
  try {
    await scenario.run(client, logger);
  } finally {
    client.close('scenario finished');
  }
}

if (require.main === module) {
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
  Promise.resolve()
    .then(() => runScenario(scenario, openTransport(process.argv.slice(2), logger), logger))
    .then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error, scenario }, 'scenario failed');
        process.stderr.write(`${scenario} failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
}
