/**
 * The example server: every server feature of rxmcp in one place, with exactly the tools, resources
 * and prompts the official conformance suite's server scenarios expect, plus a few that show off
 * the reactive style (a countdown that streams progress and stops when cancelled, a ticker
 * resource that emits updates while subscribed).
 *
 * `node dist/examples/conformance/everything-server.js` speaks MCP on stdio; logs go to stderr, stdout carries
 * protocol messages only. `--http <port>` serves Streamable HTTP at http://127.0.0.1:<port>/mcp
 * instead (and the 2024-11-05 HTTP+SSE endpoints); `--auth <issuer>` protects it, taking the JWT
 * access tokens that authorization server issues for it; `--cors <origin|*>` lets web pages of that
 * origin (several: comma-separated) call it from a browser; `--redis <url>` makes it one process
 * of a cluster on that Redis (start several: any request may reach any of them). Other hosts serve the same definition:
 * `createEverythingServer()`. `--help` lists the options, examples and environment variables; an
 * unknown option is refused in one line with exit code 2 (see server-command-line.ts).
 */
import pino from 'pino';
import { concat, defer, endWith, firstValueFrom, interval, map, of, take, timer } from 'rxjs';
import { z } from 'zod';
import {
  createResourceServer,
  createServer,
  createStdioServerTransport,
  joinRedisCluster,
  jwtVerifier,
  log,
  progress,
  serveSkills,
  startStreamableHttpServer,
  ToolError,
} from '../../lib/index';
import type {
  CorsOptions,
  JsonSchemaObject,
  McpServer,
  RequestAuthenticator,
  RequestStateOptions,
  RunningStreamableHttpServer,
  ServerContext,
  ServerSession,
  StreamableHttpServerTransport,
  ToolResult,
} from '../../lib/index';

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { clusterTools } from './cluster-tools';
import { modernTools } from './modern-tools';
import { taskTools } from './task-tools';
import { fetchServerMetadata } from '../../lib/auth/discovery';
import { parseServerCommandLine, SERVER_USAGE, ServerUsageError } from './server-command-line';
import type { ExampleAuth, ServerCommandLine } from './server-command-line';

// Peers' mistakes are logged at warn; a public server would write a line per hostile frame at that
// level, so the example logs errors only unless LOG_LEVEL asks for more (#13).
const logger = pino({ level: process.env.LOG_LEVEL ?? 'error' }, pino.destination(2));

/** A 1x1 PNG. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A tenth of a second of silence: 8 kHz, 8-bit mono PCM in a WAV container. */
function silentWav(): string {
  const samples = 800;
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24); // sample rate
  wav.writeUInt32LE(8000, 28); // byte rate
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples, 40);
  return wav.toString('base64');
}

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
const failed = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }], isError: true });

/** Runs a request to the client; its failure becomes the tool's error text instead of a thrown error. */
async function askClient<T>(ask: () => Promise<T>, describe: (answer: T) => string): Promise<ToolResult> {
  try {
    return text(describe(await ask()));
  } catch (error) {
    return failed(`Request to the client failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// The raw JSON Schema of `json_schema_2020_12_tool`, sent verbatim ($schema, $defs and all).
const JSON_SCHEMA_2020_12: JsonSchemaObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

function conformanceTools(server: McpServer, hooks: EverythingServerOptions): void {
  server.tool({
    name: 'test_simple_text',
    description: 'Returns a simple text response.',
    handler: () => text('This is a simple text response for testing.'),
  });
  server.tool({
    name: 'test_image_content',
    description: 'Returns a 1x1 PNG image.',
    handler: () => ({ content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] }),
  });
  server.tool({
    name: 'test_audio_content',
    description: 'Returns a short WAV clip.',
    handler: () => ({ content: [{ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }] }),
  });
  server.tool({
    name: 'test_embedded_resource',
    description: 'Returns an embedded text resource.',
    handler: () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  });
  server.tool({
    name: 'test_multiple_content_types',
    description: 'Returns text, an image and an embedded resource.',
    handler: () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  });
  server.tool({
    name: 'test_tool_with_logging',
    description: 'Sends three info log messages, 50 ms apart, while it runs.',
    handler: () =>
      concat(
        of(log('info', 'Tool execution started')),
        timer(50).pipe(map(() => log('info', 'Tool processing data'))),
        timer(50).pipe(map(() => log('info', 'Tool execution completed'))),
        of(text('Logging test completed')),
      ),
  });
  server.tool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100, 50 ms apart, then returns the progress token it was given.',
    handler: (_args, context) =>
      concat(
        of(progress(0, 100, 'started')),
        timer(50).pipe(map(() => progress(50, 100, 'half way'))),
        timer(50).pipe(map(() => progress(100, 100, 'done'))),
        // The answer follows a moment later: some clients (the official TypeScript SDK among them)
        // handle a notification a microtask after a response that arrives in the same read, and
        // by then have dropped the request's progress handler.
        timer(10).pipe(map(() => text(`Progress token: ${JSON.stringify(context.progressToken ?? null)}`))),
      ),
  });
  server.tool({
    name: 'test_error_handling',
    description: 'Always fails, as a tool execution error (isError), not a JSON-RPC error.',
    handler: () => {
      throw new ToolError('This tool intentionally returns an error for testing');
    },
  });
  server.tool({
    name: 'test_reconnection',
    description:
      "Answers after 100 ms; over Streamable HTTP it first closes the call's SSE stream, so the client resumes it.",
    handler: (_args, context: ServerContext) => {
      // 2025-11-25 SSE polling: the answer is stored and replayed on the client's GET + Last-Event-ID.
      hooks.closeRequestStream?.(context);
      return timer(100).pipe(map(() => text('Reconnection test completed')));
    },
  });
  server.tool({
    name: 'test_sampling',
    description: "Asks the client's model to answer a prompt (sampling/createMessage).",
    inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the model') }),
    handler: ({ prompt }, context: ServerContext) =>
      askClient(
        () =>
          firstValueFrom(
            context.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 }),
          ),
        (answer) => {
          const block = Array.isArray(answer.content) ? answer.content[0] : answer.content;
          return `LLM response: ${block?.type === 'text' ? block.text : JSON.stringify(block)}`;
        },
      ),
  });
  server.tool({
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email (elicitation/create).',
    inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
    handler: ({ message }, context) =>
      askClient(
        () =>
          firstValueFrom(
            context.elicit({
              message,
              requestedSchema: {
                type: 'object',
                properties: {
                  username: { type: 'string', description: "The user's name" },
                  email: { type: 'string', description: "The user's email address" },
                },
                required: ['username', 'email'],
              },
            }),
          ),
        (answer) => `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      ),
  });
  server.tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Asks for a form whose fields all have default values (SEP-1034).',
    handler: (_args, context) =>
      askClient(
        () =>
          firstValueFrom(
            context.elicit({
              message: 'Please review and update the form fields with defaults',
              requestedSchema: {
                type: 'object',
                properties: {
                  name: { type: 'string', description: 'User name', default: 'John Doe' },
                  age: { type: 'integer', description: 'User age', default: 30 },
                  score: { type: 'number', description: 'User score', default: 95.5 },
                  status: {
                    type: 'string',
                    description: 'User status',
                    enum: ['active', 'inactive', 'pending'],
                    default: 'active',
                  },
                  verified: { type: 'boolean', description: 'Verification status', default: true },
                },
                required: [],
              },
            }),
          ),
        (answer) => `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      ),
  });
  server.tool({
    name: 'test_elicitation_sep1330_enums',
    description:
      'Asks for a form with every enum variant: untitled, titled, legacy, single and multi select (SEP-1330).',
    handler: (_args, context) =>
      askClient(
        () =>
          firstValueFrom(
            context.elicit({
              message: 'Please choose from the enum fields',
              requestedSchema: {
                type: 'object',
                properties: {
                  untitledSingle: {
                    type: 'string',
                    description: 'Untitled single select',
                    enum: ['option1', 'option2', 'option3'],
                  },
                  titledSingle: {
                    type: 'string',
                    description: 'Titled single select',
                    oneOf: [
                      { const: 'value1', title: 'First Option' },
                      { const: 'value2', title: 'Second Option' },
                      { const: 'value3', title: 'Third Option' },
                    ],
                  },
                  legacyEnum: {
                    type: 'string',
                    description: 'Legacy titled enum',
                    enum: ['opt1', 'opt2', 'opt3'],
                    enumNames: ['Option One', 'Option Two', 'Option Three'],
                  },
                  untitledMulti: {
                    type: 'array',
                    description: 'Untitled multi select',
                    minItems: 1,
                    maxItems: 3,
                    items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
                  },
                  titledMulti: {
                    type: 'array',
                    description: 'Titled multi select',
                    minItems: 1,
                    maxItems: 3,
                    items: {
                      anyOf: [
                        { const: 'value1', title: 'First Choice' },
                        { const: 'value2', title: 'Second Choice' },
                        { const: 'value3', title: 'Third Choice' },
                      ],
                    },
                  },
                },
                required: [],
              },
            }),
          ),
        (answer) => `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      ),
  });
  server.tool({
    name: 'json_schema_2020_12_tool',
    description: 'Takes arguments described by a JSON Schema 2020-12 document with $defs, sent verbatim.',
    inputSchema: JSON_SCHEMA_2020_12,
    handler: (args) => text(`Received: ${JSON.stringify(args)}`),
  });
}

function showcaseTools(server: McpServer): void {
  server.tool({
    name: 'echo',
    description: 'Echoes the text it is given.',
    inputSchema: z.object({ text: z.string().describe('The text to echo back') }),
    handler: ({ text: value }) => text(value),
  });
  server.tool({
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    handler: ({ a, b }) => text(String(a + b)),
  });
  server.tool({
    name: 'divide',
    description: 'Divides two numbers and returns the quotient as structured content.',
    inputSchema: z.object({ dividend: z.number(), divisor: z.number().refine((d) => d !== 0, 'must not be zero') }),
    outputSchema: z.object({ quotient: z.number() }),
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: ({ dividend, divisor }) => ({ structuredContent: { quotient: dividend / divisor } }),
  });
  server.tool({
    name: 'countdown',
    description:
      'Counts down from `from`, one step every `intervalMs`, streaming each step as progress; cancel to stop it.',
    inputSchema: z.object({
      from: z.number().int().min(1).max(1000).default(5),
      intervalMs: z.number().int().min(1).max(10_000).default(100),
    }),
    handler: ({ from, intervalMs }) =>
      interval(intervalMs).pipe(
        take(from),
        map((i) => progress(i + 1, from, `${from - i - 1} to go`)),
        endWith(text(`Counted down from ${from}`)),
      ),
  });
  server.tool({
    name: 'list_examples',
    description: 'Links to the example resources (resource_link content).',
    handler: () => ({
      content: [
        { type: 'resource_link', uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' },
        {
          type: 'resource_link',
          uri: 'rxmcp://ticker',
          name: 'ticker',
          description: 'Ticks every second while subscribed',
        },
      ],
    }),
  });
}

function resourcesAndPrompts(server: McpServer): void {
  server.resource({
    uri: 'test://static-text',
    name: 'static-text',
    description: 'A static text resource.',
    mimeType: 'text/plain',
    text: 'This is the content of the static text resource.',
  });
  server.resource({
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'A static binary resource (a 1x1 PNG).',
    mimeType: 'image/png',
    blob: PNG_1X1,
  });
  server.resourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data for any id.',
    mimeType: 'application/json',
    read: (_uri, { id }) => ({
      contents: [{ text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
    }),
    complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
  });
  server.resource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource to subscribe to; it reports an update every 3 s while subscribed.',
    mimeType: 'text/plain',
    read: () => ({ contents: [{ text: `Watched resource content at ${new Date().toISOString()}` }] }),
    watch: () => interval(3000),
  });
  server.resource({
    uri: 'rxmcp://ticker',
    name: 'ticker',
    description: 'The current second; while subscribed, an update arrives every second.',
    mimeType: 'application/json',
    read: () => defer(() => of({ contents: [{ text: JSON.stringify({ now: new Date().toISOString() }) }] })),
    watch: () => interval(1000),
  });

  server.prompt({
    name: 'test_simple_prompt',
    description: 'A prompt with no arguments.',
    handler: () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    }),
  });
  const suggest = (options: string[]) => (value: string) => options.filter((option) => option.startsWith(value));
  server.prompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments.',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        complete: suggest(['test', 'testValue1', 'other']),
      },
      { name: 'arg2', description: 'Second test argument', required: true, complete: suggest(['testValue2', 'more']) },
    ],
    handler: ({ arg1, arg2 }) => ({
      messages: [
        { role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
      ],
    }),
  });
  server.prompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds the resource it is given.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    handler: ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: String(resourceUri),
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  });
  server.prompt({
    name: 'test_prompt_with_image',
    description: 'A prompt with an image.',
    handler: () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  });
}

/** Options of `createEverythingServer`. */
export interface EverythingServerOptions {
  readonly logger?: pino.Logger;
  /** Ends the SSE stream of the request being handled, where the transport has one (Streamable HTTP). */
  readonly closeRequestStream?: (context: ServerContext) => void;
  /** How `requestState` is signed (a cluster's processes share its key). */
  readonly requestState?: RequestStateOptions;
}

/** Builds the example server definition (shared by every transport it is served on). */
export function createEverythingServer(options: EverythingServerOptions = {}): McpServer {
  const server = createServer({
    name: 'rxmcp-everything-server',
    version: '0.1.0',
    instructions: 'A demonstration server: every MCP server feature, streamed progress and cancellation.',
    logger: options.logger ?? logger,
    // Both task designs: 2025-11-25 sessions and clients of the 2026-07-28 tasks extension.
    tasks: { pollIntervalMs: 200 },
    ...(options.requestState ? { requestState: options.requestState } : {}),
  });
  conformanceTools(server, options);
  showcaseTools(server);
  resourcesAndPrompts(server);
  modernTools(server);
  // Skills (SEP-2640) from the folder beside this file: two skills, one with a subfolder.
  serveSkills(server, { folder: exampleSkillsFolder() });
  taskTools(server);
  return server;
}

/** examples/conformance/skills, whether this runs from its source folder or from its build in dist/. */
export function exampleSkillsFolder(): string {
  const beside = join(__dirname, 'skills');
  return existsSync(beside) ? beside : join(__dirname, '..', '..', '..', 'examples', 'conformance', 'skills');
}

export type { ExampleAuth } from './server-command-line';

/** A resource server for the endpoint, trusting `issuer`'s JWT access tokens issued for it. */
async function protectedBy(auth: ExampleAuth): Promise<(endpoint: URL) => RequestAuthenticator> {
  const metadata = await fetchServerMetadata((input, init) => fetch(input, init), auth.issuer);
  const jwksUri = metadata?.jwks_uri;
  if (typeof jwksUri !== 'string') throw new Error(`${auth.issuer} publishes no jwks_uri: cannot check its tokens`);
  return (endpoint) =>
    createResourceServer({
      resource: endpoint.href,
      authorizationServers: [auth.issuer],
      ...(auth.scopes !== undefined ? { scopesSupported: auth.scopes } : {}),
      verify: jwtVerifier({ jwksUri, issuer: metadata?.issuer ?? auth.issuer, audience: endpoint.href }),
    });
}

/**
 * Serves the example over Streamable HTTP at `http://127.0.0.1:<port>/mcp`, with the 2024-11-05
 * HTTP+SSE endpoints beside it (`/sse`, `/messages`). Port 0 picks a free port. With `auth`, the
 * MCP endpoint takes only access tokens of that authorization server issued for it. With `cors`, web
 * pages of those origins may call it.
 */
export async function serveHttp(
  port: number,
  auth?: ExampleAuth,
  cors?: CorsOptions,
): Promise<RunningStreamableHttpServer> {
  const streams = new WeakMap<ServerSession, StreamableHttpServerTransport>();
  const server = createEverythingServer({
    closeRequestStream: (context) =>
      void (context.session && streams.get(context.session)?.closeRequestStream(context.requestId)),
  });
  return startStreamableHttpServer({
    host: '127.0.0.1',
    port,
    ...(auth !== undefined ? { auth: await protectedBy(auth) } : {}),
    ...(cors !== undefined ? { cors } : {}),
    httpSse: auth === undefined,
    logger,
    onSession: (transport) => {
      streams.set(server.connect(transport), transport);
    },
    // Requests of the modern revision (2026-07-28) are served beside the sessions.
    modernReceiver: server.modern,
  });
}

/**
 * Serves the example as one process of a cluster on the Redis at `redisUrl`: the same endpoint as
 * `serveHttp` (without the legacy endpoints), whose sessions any process of the cluster serves.
 * Resolves once listening; closing it hands its sessions to the other processes.
 */
export async function serveCluster(port: number, redisUrl: string): Promise<RunningStreamableHttpServer> {
  const cluster = await joinRedisCluster({ redis: redisUrl, logger });
  const streams = new WeakMap<ServerSession, StreamableHttpServerTransport>();
  const server = createEverythingServer({
    requestState: { keys: cluster.requestStateKeys },
    closeRequestStream: (context) =>
      void (context.session && streams.get(context.session)?.closeRequestStream(context.requestId)),
  });
  clusterTools(server, cluster);
  const running = await cluster.serve(server, { host: '127.0.0.1', port, logger });
  return { ...running, close: () => cluster.close() };
}

if (require.main === module) {
  let command: ServerCommandLine;
  try {
    command = parseServerCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ServerUsageError)) throw error;
    process.stderr.write(`${error.message} (see --help)\n`);
    process.exit(2);
  }
  if (command.kind === 'help') {
    process.stdout.write(`${SERVER_USAGE}\n`);
    process.exit(0);
  } else if (command.kind === 'stdio') {
    const session = createEverythingServer().connect(createStdioServerTransport({ logger }));
    session.closed$.subscribe(({ reason }) => {
      logger.info({ reason }, 'session ended');
      process.exit(0);
    });
  } else {
    const { port, redis } = command;
    const serving = redis === undefined ? serveHttp(port, command.auth, command.cors) : serveCluster(port, redis);
    serving.then(
      (running) => {
        const legacy = redis === undefined ? ' (the deprecated HTTP+SSE at /sse)' : ' (one process of a Redis cluster)';
        process.stdout.write(`rxmcp everything-server: Streamable HTTP at ${running.url}${legacy}\n`);
        const stop = () => void running.close().then(() => process.exit(0));
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      },
      (error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES') {
          process.stderr.write(
            `rxmcp everything-server: port ${port} is ${code === 'EADDRINUSE' ? 'already in use' : 'not allowed'}; choose another with --port <port> or PORT=<port>\n`,
          );
        } else logger.error({ err: error }, 'cannot start the HTTP server');
        process.exit(1);
      },
    );
  }
}
