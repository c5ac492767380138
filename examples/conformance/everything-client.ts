/**
 * The example client: what each non-auth client scenario of the MCP conformance suite expects,
 * for the handshake revisions and for 2026-07-28 alike.
 *
 *   MCP_CONFORMANCE_SCENARIO=tools_call node dist/examples/conformance/everything-client.js http://127.0.0.1:3000/mcp
 *   MCP_CONFORMANCE_SCENARIO=initialize node dist/examples/conformance/everything-client.js node dist/examples/conformance/everything-server.js
 *
 * The last argument is the server's URL; anything else is taken as a command that starts a server
 * speaking MCP on stdio. The era is negotiated (`protocolVersion: 'auto'`): `server/discover` first,
 * `initialize` for a server that does not know it. `MCP_CONFORMANCE_CONTEXT` (JSON) carries what
 * some scenarios ask for, such as the tool calls to make. Logs go to stderr; the exit code is 0
 * when the scenario ran to the end.
 */
import pino from 'pino';
import type { Logger } from 'pino';
import {
  connect,
  createStdioClientTransport,
  createStreamableHttpClientTransport,
  SkillVerificationError,
  skillsClient,
} from '../../lib/index';
import type { ClientOptions, McpClient, Transport } from '../../lib/index';
import { createOAuthClient } from '../../lib/auth/oauth-client';
import type { OAuthClient } from '../../lib/auth/oauth-client';

const CLIENT_INFO = { name: 'rxmcp-everything-client', version: '0.1.0' } as const;

/** What `MCP_CONFORMANCE_CONTEXT` may hold. */
export interface ScenarioContext {
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments?: Record<string, unknown> }>;
  /** A pre-registered client (authorization scenarios). */
  readonly client_id?: string;
  readonly client_secret?: string;
  /** A `private_key_jwt` client's key (PKCS #8 PEM) and algorithm. */
  readonly private_key_pem?: string;
  readonly signing_algorithm?: string;
  /** Enterprise-managed authorization: the identity provider and the user's ID token there. */
  readonly idp_client_id?: string;
  readonly idp_id_token?: string;
  readonly idp_token_endpoint?: string;
  /** Workload identity federation: the workload's JWT. */
  readonly valid_jwt?: string;
}

/** The client ID metadata document the authorization scenarios expect a client to name. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * Authorization without a user: the authorization URL is fetched without following redirects and
 * the redirect back (with its code) is read from `Location`, as a browser would be sent there.
 */
async function headlessAuthorize(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  await response.body?.cancel();
  if (location === null) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return location;
}

/** The OAuth client of an authorization scenario (`auth/...`), from its name and context. */
export function scenarioAuth(name: string, context: ScenarioContext): OAuthClient {
  const base = {
    redirectUrl: 'http://127.0.0.1/callback',
    authorize: headlessAuthorize,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientMetadata: { client_name: CLIENT_INFO.name },
  };
  const id = context.client_id;
  const secret = context.client_secret;
  const client =
    id === undefined ? undefined : { client_id: id, ...(secret !== undefined ? { client_secret: secret } : {}) };
  if (context.private_key_pem !== undefined && id !== undefined) {
    return createOAuthClient({
      ...base,
      grant: 'client_credentials',
      client: { client_id: id, token_endpoint_auth_method: 'private_key_jwt' },
      clientKey: { key: context.private_key_pem, alg: context.signing_algorithm ?? 'ES256' },
    });
  }
  if (context.idp_id_token !== undefined && context.idp_token_endpoint !== undefined) {
    return createOAuthClient({
      ...base,
      grant: 'jwt_bearer',
      ...(client !== undefined ? { client } : {}),
      identityAssertion: {
        tokenEndpoint: context.idp_token_endpoint,
        idToken: context.idp_id_token,
        clientId: context.idp_client_id ?? id ?? '',
      },
    });
  }
  if (context.valid_jwt !== undefined) {
    const workloadJwt = context.valid_jwt;
    return createOAuthClient({
      ...base,
      grant: 'jwt_bearer',
      ...(id !== undefined ? { client: { client_id: id, token_endpoint_auth_method: 'none' } } : {}),
      assertion: () => Promise.resolve(workloadJwt),
    });
  }
  return createOAuthClient({
    ...base,
    grant: name.startsWith('auth/client-credentials') ? 'client_credentials' : 'authorization_code',
    ...(client !== undefined ? { client } : {}),
  });
}

/** One scenario: the options to connect with, and what to do once connected. */
export interface Scenario {
  readonly options?: Omit<ClientOptions, 'name' | 'version'>;
  run(client: McpClient, logger: Logger, context: ScenarioContext): Promise<void>;
}

/** Sampling, elicitation and roots, all declared (the request-metadata scenario checks their shape). */
const EVERY_CAPABILITY: Omit<ClientOptions, 'name' | 'version'> = {
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'rxmcp-example' }),
  elicitation: () => ({ action: 'accept', content: {} }),
  roots: [],
};

/** Lists the tools, then calls each one `pick` chooses, with the arguments it gives. */
async function callListed(
  client: McpClient,
  logger: Logger,
  pick: (name: string) => Record<string, unknown> | undefined,
): Promise<void> {
  const tools = await client.promises.listTools();
  logger.info({ tools: tools.map((tool) => tool.name) }, 'tools listed');
  for (const tool of tools) {
    const args = pick(tool.name);
    if (args === undefined) continue;
    const result = await client.promises.callTool(tool.name, args);
    logger.info({ tool: tool.name, result }, 'tool answered');
  }
}

/**
 * A host using a server's skills (SEP-2640): list them (no file is read), load the first one (its
 * SKILL.md, verified against the entry) and then read its other files (each verified). A file that
 * fails verification is refused: the skill is not used, nothing more of it is read, and the
 * scenario ends normally.
 */
async function useFirstSkill(client: McpClient, logger: Logger): Promise<void> {
  const skills = skillsClient(client);
  const [entry] = await skills.list();
  if (entry === undefined) return;
  try {
    const skill = await skills.load(entry);
    logger.info({ skill: skill.frontmatter.name }, 'skill loaded');
    for (const file of entry.resources === 'dynamic' ? [] : entry.resources) {
      if (file.uri !== entry.uri) logger.info({ uri: (await skill.readFile(file.uri)).uri }, 'skill file read');
    }
  } catch (error) {
    if (!(error instanceof SkillVerificationError)) throw error;
    logger.warn({ uri: error.uri, failure: error.failure }, 'skill refused: a file failed verification');
  }
}

/** The scenarios by the name the conformance runner puts in `MCP_CONFORMANCE_SCENARIO`. */
export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  // Negotiation only (a legacy server gets initialize offering 2025-11-25), then a clean close.
  initialize: {
    run: async () => undefined,
  },
  // List the tools, then call add_numbers.
  tools_call: {
    run: (client, logger) =>
      callListed(client, logger, (name) => (name === 'add_numbers' ? { a: 5, b: 3 } : undefined)),
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
  // The server refuses the first request's version: negotiation retries with one it supports.
  'request-metadata': {
    options: EVERY_CAPABILITY,
    run: async (client) => {
      await client.promises.listTools();
    },
  },
  // Multi round-trip requests: answer each elicitation, echo requestState, keep calls apart.
  'sep-2322-client-request-state': {
    options: { elicitation: () => ({ action: 'accept', content: { confirmed: true } }) },
    run: async (client, logger) => {
      for (const name of [
        'test_mrtr_echo_state',
        'test_mrtr_no_state',
        'test_mrtr_unrelated',
        'test_mrtr_no_result_type',
      ]) {
        logger.info({ name, result: await client.promises.callTool(name, {}) }, 'tool answered');
      }
    },
  },
  // Every method that carries Mcp-Method, and the three that carry Mcp-Name.
  'http-standard-headers': {
    run: async (client, logger) => {
      const [tool] = await client.promises.listTools();
      if (tool) logger.info({ result: await client.promises.callTool(tool.name, {}) }, 'tool answered');
      const [resource] = await client.promises.listResources();
      if (resource) logger.info({ result: await client.promises.readResource(resource.uri) }, 'resource read');
      const [prompt] = await client.promises.listPrompts();
      if (prompt) logger.info({ result: await client.promises.getPrompt(prompt.name) }, 'prompt got');
    },
  },
  // The calls the context lists, with their x-mcp-header arguments mirrored into Mcp-Param headers.
  'http-custom-headers': {
    run: async (client, logger, context) => {
      await client.promises.listTools();
      for (const call of context.toolCalls ?? []) {
        logger.info(
          { name: call.name, result: await client.promises.callTool(call.name, call.arguments ?? {}) },
          'tool answered',
        );
      }
    },
  },
  // Tools with invalid x-mcp-header annotations are left out of the list: only valid ones get called.
  'http-invalid-tool-headers': {
    run: (client, logger) => callListed(client, logger, () => ({ region: 'us-west1' })),
  },
  // List the tools without fetching what their schemas reference.
  'json-schema-ref-no-deref': {
    run: async (client) => {
      await client.promises.listTools();
    },
  },
  // Skills: listing reads nothing; loading verifies size, digest and frontmatter before use.
  'sep-2640-client-no-prefetch': {
    run: async (client, logger) => {
      logger.info({ skills: (await skillsClient(client).list()).map((entry) => entry.uri) }, 'skills listed');
    },
  },
  'sep-2640-client-verify-digest': { run: useFirstSkill },
  'sep-2640-client-verify-size': { run: useFirstSkill },
  'sep-2640-client-verify-frontmatter': { run: useFirstSkill },
  // Send the focal tool's inputSchema back, exactly as received.
  'json-schema-2020-12-preservation': {
    run: async (client, logger) => {
      const tools = await client.promises.listTools();
      const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error('the server lists no json_schema_2020_12_tool');
      const result = await client.promises.callTool('json_schema_echo', { schema: focal.inputSchema });
      logger.info({ result }, 'json_schema_echo answered');
    },
  },
};

/** What any other scenario gets: negotiate, list the tools, close. */
const FALLBACK: Scenario = {
  run: async (client) => {
    await client.promises.listTools();
  },
};

/** The authorization scenarios: list the tools and call `test-tool` (a step-up asks for more scope there). */
const AUTHORIZED: Scenario = {
  run: (client, logger) => callListed(client, logger, (name) => (name === 'test-tool' ? {} : undefined)),
};

function isHttpUrl(value: string | undefined): value is string {
  return value !== undefined && /^https?:\/\//i.test(value);
}

/**
 * The one place the transport is chosen: a URL means Streamable HTTP, anything else is the
 * command line of a stdio server.
 */
export function openTransport(args: readonly string[], logger: Logger, auth?: OAuthClient): Transport {
  const target = args.at(-1);
  if (isHttpUrl(target)) return httpTransport(target, logger, auth);
  const [command, ...rest] = args;
  if (command === undefined) throw new Error('usage: everything-client <server URL> | <command> [args...]');
  return createStdioClientTransport({ command, args: rest, stderr: 'inherit', logger });
}

/** Streamable HTTP to the URL exactly as given (some test servers have no `/mcp` path). */
function httpTransport(url: string, logger: Logger, auth?: OAuthClient): Transport {
  return createStreamableHttpClientTransport({ url, logger, ...(auth !== undefined ? { auth } : {}) });
}

/** `MCP_CONFORMANCE_CONTEXT`, read leniently: a scenario without one gets `{}`. */
export function readContext(text: string | undefined): ScenarioContext {
  if (text === undefined || text === '') return {};
  const parsed = JSON.parse(text) as unknown;
  return typeof parsed === 'object' && parsed !== null ? (parsed as ScenarioContext) : {};
}

/** Runs one scenario against a server; resolves when it is done and the connection is closed. */
export async function runScenario(
  name: string,
  transport: Transport,
  logger: Logger,
  context: ScenarioContext = {},
): Promise<void> {
  const scenario = SCENARIOS[name] ?? (name.startsWith('auth/') ? AUTHORIZED : FALLBACK);
  if (!(name in SCENARIOS) && !name.startsWith('auth/'))
    logger.warn({ scenario: name }, 'unknown scenario: connecting and listing tools only');
  const client = await connect(transport, { ...CLIENT_INFO, ...scenario.options, logger });
  logger.info({ era: client.era, revision: client.revision }, 'connected');
  try {
    await scenario.run(client, logger, context);
  } finally {
    client.close('scenario finished');
  }
}

if (require.main === module) {
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
  const context = readContext(process.env.MCP_CONFORMANCE_CONTEXT);
  const auth = scenario.startsWith('auth/') ? scenarioAuth(scenario, context) : undefined;
  Promise.resolve()
    .then(() => runScenario(scenario, openTransport(process.argv.slice(2), logger, auth), logger, context))
    .then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error, scenario }, 'scenario failed');
        process.stderr.write(`${scenario} failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
}
