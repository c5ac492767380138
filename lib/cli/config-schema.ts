/**
 * The JSON Schema (draft 2020-12) of `rxmcp proxy`'s servers file, as `rxmcp proxy --print-schema`
 * prints it: for editors (`"$schema"` in the file) and for checking a file before it is deployed.
 * It says what `parseProxyConfig` accepts; a spec checks the two agree. What JSON Schema cannot
 * say is left to the parser: `${VAR}` expansion, a `url` that is http(s) after expansion, two
 * servers with one namespace.
 */

import { UPSTREAM_OAUTH_JSON_SCHEMA } from './upstream-oauth';

const matcher = {
  description: 'A name, a glob (`*` any run of characters, `?` any one), or a list of them (any may match).',
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
};
const filter = { include: matcher, exclude: matcher };
const rename = {
  description: "New names by the upstream's own name (the namespace still prefixes them).",
  type: 'object',
  additionalProperties: { type: 'string', minLength: 1 },
};
const reconnect = {
  type: 'object',
  additionalProperties: false,
  properties: {
    initialDelayMs: { type: 'integer', minimum: 0, description: 'The wait before the first retry. Default 500.' },
    maxDelayMs: { type: 'integer', minimum: 0, description: 'The longest wait between two attempts. Default 30000.' },
    factor: { type: 'number', minimum: 1, description: 'How much longer each wait is. Default 2.' },
    jitter: { type: 'number', minimum: 0, maximum: 1, description: 'The share of each wait taken off at random.' },
    maxAttempts: { type: 'integer', minimum: 1, description: 'Failed attempts in a row before giving up.' },
  },
};
const argumentPolicy = {
  oneOf: [
    {
      type: 'object',
      required: ['hidden'],
      additionalProperties: false,
      properties: { hidden: { description: 'Removed from the schema; every call is sent with this value.' } },
    },
    {
      type: 'object',
      required: ['default'],
      additionalProperties: false,
      properties: { default: { description: 'No longer required; a call without it is sent with this value.' } },
    },
  ],
};

/** What every entry may hold beside how it is reached. */
const common = {
  disabled: { type: 'boolean', description: 'true: the entry is skipped.' },
  namespace: {
    type: 'string',
    description: 'The prefix of its tools, prompts and resource URIs. Default: its name, "_" written "-". "": none.',
  },
  tools: {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...filter,
      rename,
      arguments: {
        description: 'Argument policies by tool ("*": every tool that has the argument), then by argument.',
        type: 'object',
        additionalProperties: { type: 'object', additionalProperties: argumentPolicy },
      },
    },
  },
  prompts: { type: 'object', additionalProperties: false, properties: { ...filter, rename } },
  resources: { type: 'object', additionalProperties: false, properties: filter },
  sharing: {
    enum: ['shared', 'perSession'],
    description: 'One connection for every client (default), or one per downstream session.',
  },
  reconnect: { oneOf: [{ const: false }, { $ref: '#/$defs/reconnect' }] },
  startTimeoutMs: { type: 'integer', minimum: 1, description: 'How long it may take to connect. Default 30000.' },
  autoApprove: { type: 'array', items: { type: 'string' }, description: "Another client's key: ignored." },
  alwaysAllow: { type: 'array', items: { type: 'string' }, description: "Another client's key: ignored." },
  timeout: { type: 'number', description: "Another client's key: ignored." },
  description: { type: 'string', description: "Another client's key: ignored." },
};

const strings = { type: 'object', additionalProperties: { type: 'string' } };

const scopes = { type: 'array', items: { type: 'string', minLength: 1 } };
const resourceServer = {
  resource: { type: 'string', minLength: 1, description: "The gateway's public URL: the tokens' audience." },
  issuer: { type: 'string', minLength: 1, description: 'The authorization server that issues the tokens.' },
  requiredScopes: { ...scopes, description: 'Scopes every request needs.' },
  scopesSupported: { ...scopes, description: 'Scopes published in the protected resource metadata.' },
};

const names = { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } };

/** The `policies` key: limits and tool visibility per caller. */
const policies = {
  description: 'Limits and tool visibility per caller: its principal where `auth` is set, else its session.',
  type: 'object',
  additionalProperties: false,
  properties: {
    rateLimits: {
      type: 'array',
      items: {
        type: 'object',
        required: ['limit', 'windowMs'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, description: 'Names the limit in refusals. Default requests.' },
          limit: { type: 'integer', minimum: 1, description: 'Requests per window and caller.' },
          windowMs: { type: 'integer', minimum: 1 },
          methods: { ...names, description: 'The methods counted (tools/call...). Default all.' },
        },
      },
    },
    concurrency: { type: 'integer', minimum: 1, description: 'Calls a caller may have in flight.' },
    redis: {
      type: 'string',
      minLength: 1,
      description: 'A redis:// URL (${VAR} allowed): rate limits are counted there, for every replica of the gateway.',
    },
    onStoreError: { enum: ['allow', 'refuse'], description: 'When Redis cannot count. Default allow.' },
    tools: {
      description: 'Who may see and call each tool (its name as the gateway shows it).',
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: { scopes: names, roles: names },
      },
    },
    rolesClaim: { type: 'string', minLength: 1, description: 'The token claim holding roles. Default roles.' },
  },
};

/** The `auth` key: who may call the gateway's HTTP endpoint. */
const auth = {
  description: 'Who may call `--http`: one of an API key (from the environment), JWTs, or introspected tokens.',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: {
    apiKey: {
      type: 'object',
      required: ['env'],
      additionalProperties: false,
      properties: {
        env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'The variable holding the key.' },
        subject: { type: 'string', minLength: 1, description: 'Who a caller with the key is. Default api-key.' },
        scopes: { ...scopes, description: 'The scopes a caller with the key holds.' },
      },
    },
    jwt: {
      type: 'object',
      required: ['resource', 'issuer', 'jwksUri'],
      additionalProperties: false,
      properties: {
        ...resourceServer,
        jwksUri: { type: 'string', minLength: 1, description: "The authorization server's key set." },
        audience: { type: 'string', minLength: 1, description: 'The audience tokens name. Default: resource.' },
        algorithms: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
    },
    introspection: {
      type: 'object',
      required: ['resource', 'issuer', 'endpoint', 'clientId', 'clientSecret'],
      additionalProperties: false,
      properties: {
        ...resourceServer,
        endpoint: { type: 'string', minLength: 1, description: 'The introspection endpoint (RFC 7662).' },
        clientId: { type: 'string', minLength: 1 },
        clientSecret: { type: 'string', minLength: 1, description: 'Write it as ${VAR} to keep it out of the file.' },
      },
    },
  },
};

const servers = {
  type: 'object',
  propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9._-]*$' },
  additionalProperties: { $ref: '#/$defs/server' },
};

/** The servers file's JSON Schema. */
export const CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://rxmcp.dev/schemas/rxmcp-proxy-config.json',
  title: 'rxmcp proxy servers file',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    mcpServers: servers,
    servers,
    separator: {
      type: 'string',
      minLength: 1,
      pattern: '[^A-Za-z0-9.-]',
      description: 'Between a namespace and a name. Default "_".',
    },
    collisions: { enum: ['prefix', 'first', 'error'], description: 'Two upstreams showing one name. Default prefix.' },
    requestTimeoutMs: { type: 'integer', minimum: 1, description: 'A forwarded request without answer or progress.' },
    reconnect: { $ref: '#/$defs/reconnect' },
    instructions: { type: 'string', description: "The aggregate's instructions to clients." },
    auth,
    policies,
    metrics: {
      description: 'Who may read /metrics. Default: whoever `auth` lets in (anyone, without `auth`).',
      type: 'object',
      required: ['tokenEnv'],
      additionalProperties: false,
      properties: {
        tokenEnv: {
          type: 'string',
          pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
          description: 'The variable holding the bearer token a scraper presents instead.',
        },
      },
    },
  },
  oneOf: [{ required: ['mcpServers'] }, { required: ['servers'] }],
  $defs: {
    reconnect,
    server: {
      oneOf: [
        {
          type: 'object',
          required: ['command'],
          additionalProperties: false,
          properties: {
            command: { type: 'string', minLength: 1 },
            args: { type: 'array', items: { type: 'string' } },
            env: strings,
            cwd: { type: 'string', minLength: 1 },
            ...common,
          },
        },
        {
          type: 'object',
          required: ['url'],
          additionalProperties: false,
          properties: {
            url: { type: 'string', minLength: 1 },
            headers: strings,
            type: { enum: ['http', 'streamable-http', 'sse'] },
            oauth: UPSTREAM_OAUTH_JSON_SCHEMA,
            ...common,
          },
        },
      ],
    },
  },
} as const;
