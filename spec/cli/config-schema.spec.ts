import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseProxyConfig } from '../../lib/cli/config';
import { CONFIG_SCHEMA } from '../../lib/cli/config-schema';

const validate = new Ajv2020({ strict: false }).compile(CONFIG_SCHEMA);
const parses = (config: unknown): boolean => {
  try {
    parseProxyConfig('servers.json', JSON.stringify(config), { GATEWAY_KEY: 'a-key-of-32-characters-or-so-000' });
    return true;
  } catch {
    return false;
  }
};

const GOOD: unknown[] = [
  { mcpServers: { a: { command: 'x' } } },
  { servers: { my_files: { command: 'x', args: ['y'], env: { A: '1' }, cwd: '/srv', autoApprove: [] } } },
  { servers: { a: { url: 'http://h/mcp', type: 'sse', headers: { k: 'v' }, reconnect: false } }, separator: '__' },
  {
    servers: {
      a: {
        command: 'x',
        namespace: '',
        tools: { include: ['read_*'], rename: { r: 's' }, arguments: { '*': { t: { hidden: 1 } } } },
        prompts: { exclude: 'p' },
        resources: { include: 'file:*' },
        sharing: 'perSession',
        startTimeoutMs: 10,
      },
    },
    collisions: 'error',
    requestTimeoutMs: 5,
    reconnect: { initialDelayMs: 0 },
  },
  { servers: { a: { command: 'x' } }, auth: { apiKey: { env: 'GATEWAY_KEY', subject: 'ci', scopes: ['read'] } } },
  {
    servers: { a: { command: 'x' } },
    policies: {
      rateLimits: [
        { name: 'calls', limit: 60, windowMs: 60000, methods: ['tools/call'] },
        { limit: 1000, windowMs: 86400000 },
      ],
      concurrency: 4,
      redis: 'redis://127.0.0.1:6379',
      onStoreError: 'refuse',
      tools: { a_deploy: { scopes: ['deploy'], roles: ['admin'] } },
      rolesClaim: 'realm_access.roles',
    },
  },
  {
    servers: {
      a: { url: 'http://h/mcp', oauth: { clientId: 'c', scopes: 'a b', tokenFile: 't.json', callbackPort: 0 } },
    },
  },
  { servers: { a: { url: 'http://h/mcp', oauth: { grant: 'client_credentials', clientId: 'c', clientSecret: 's' } } } },
  {
    servers: { a: { command: 'x' } },
    auth: {
      jwt: { resource: 'https://g/mcp', issuer: 'https://as', jwksUri: 'https://as/jwks', requiredScopes: ['mcp'] },
    },
  },
  {
    servers: { a: { command: 'x' } },
    auth: {
      introspection: {
        resource: 'https://g/mcp',
        issuer: 'https://as',
        endpoint: 'https://as/i',
        clientId: 'g',
        clientSecret: 's',
      },
    },
  },
];
const BAD: unknown[] = [
  { other: {} },
  { mcpServers: { a: { command: 'x', tols: {} } } },
  { mcpServers: { '1a': { command: 'x' } } },
  { mcpServers: { a: { command: 'x', url: 'http://h/' } } },
  { mcpServers: { a: { url: 'http://h/', sharing: 'always' } } },
  { mcpServers: { a: { command: 'x', tools: { arguments: { t: { x: { value: 1 } } } } } } },
  { mcpServers: { a: { command: 'x' } }, collisions: 'last' },
  { mcpServers: { a: { command: 'x' } }, separator: '-' },
  { mcpServers: { a: { command: 'x' } }, auth: {} },
  { mcpServers: { a: { command: 'x' } }, policies: { rateLimits: [{ limit: 1 }] } },
  { mcpServers: { a: { command: 'x' } }, policies: { tools: { t: { scope: ['x'] } } } },
  { mcpServers: { a: { command: 'x' } }, policies: { redis: '' } },
  { mcpServers: { a: { command: 'x', oauth: {} } } },
  { mcpServers: { a: { url: 'http://h/mcp', oauth: { grant: 'device' } } } },
  {
    mcpServers: { a: { command: 'x' } },
    auth: { apiKey: { env: 'GATEWAY_KEY' }, jwt: { resource: 'r', issuer: 'i', jwksUri: 'j' } },
  },
  { mcpServers: { a: { command: 'x' } }, auth: { jwt: { resource: 'https://g/mcp', issuer: 'https://as' } } },
  { mcpServers: { a: { command: 'x' } }, auth: { apiKey: { env: 'GATEWAY-KEY' } } },
  [],
];

describe('the servers file schema', () => {
  it('is draft 2020-12 and accepts the example configs', () => {
    expect(CONFIG_SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const example = JSON.parse(readFileSync(resolve(__dirname, '../../examples/gateway.json'), 'utf8')) as unknown;
    expect(validate(example)).toBe(true);
  });

  it.each(GOOD.map((config) => [JSON.stringify(config), config]))('and the parser accept %s', (_text, config) => {
    expect(validate(config)).toBe(true);
    expect(parses(config)).toBe(true);
  });

  it.each(BAD.map((config) => [JSON.stringify(config), config]))('and the parser refuse %s', (_text, config) => {
    expect(validate(config)).toBe(false);
    expect(parses(config)).toBe(false);
  });
});
