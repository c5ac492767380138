import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseProxyConfig } from '../../lib/cli/config';
import { CONFIG_SCHEMA } from '../../lib/cli/config-schema';
import { gatewayMiddleware } from '../../lib/cli/gateway-policies';
import type { RedisConnection } from '../../lib/cluster/redis-connection';

// examples/gateway-production.json, the production config the docs show: valid against the
// published schema, read by the servers file's parser with its variables set, and turned into
// the gateway's middleware.

const FILE = resolve(__dirname, '../../examples/gateway-production.json');
const TEXT = readFileSync(FILE, 'utf8');
const ENV = {
  GATEWAY_URL: 'https://mcp.example.com/mcp',
  OAUTH_ISSUER: 'https://login.example.com/realms/staff',
  REDIS_URL: 'redis://redis.internal:6379',
  METRICS_TOKEN: 'scrape-me-0123456789',
  CRM_URL: 'https://crm.example.com/mcp',
  CRM_CLIENT_ID: 'mcp-gateway',
  CRM_CLIENT_SECRET: 'crm-secret',
};

describe('examples/gateway-production.json', () => {
  it('is valid against the servers file schema', () => {
    const validate = new Ajv2020({ strict: false }).compile(CONFIG_SCHEMA);
    expect(validate(JSON.parse(TEXT))).toBe(true);
  });

  it('reads as a gateway with JWT auth, per-user limits on Redis, a metrics token and an OAuth upstream', () => {
    const config = parseProxyConfig(FILE, TEXT, ENV);
    expect(config.auth).toEqual({
      kind: 'jwt',
      settings: {
        resource: 'https://mcp.example.com/mcp',
        issuer: 'https://login.example.com/realms/staff',
        jwksUri: 'https://login.example.com/realms/staff/.well-known/jwks.json',
        requiredScopes: ['mcp'],
        scopesSupported: ['mcp', 'files.write', 'crm.admin'],
      },
    });
    expect(config.policies).toMatchObject({ redis: 'redis://redis.internal:6379', concurrency: 8 });
    expect(config.metricsToken).toBe('scrape-me-0123456789');
    expect(config.settings).toEqual({ requestTimeoutMs: 120_000 });
    const [files, crm] = config.upstreams;
    expect(files).toMatchObject({ kind: 'stdio', name: 'files', command: 'npx', policy: { startTimeoutMs: 60_000 } });
    expect(crm).toMatchObject({
      kind: 'http',
      name: 'crm',
      url: new URL('https://crm.example.com/mcp'),
      oauth: {
        grant: 'client_credentials',
        client: { client_id: 'mcp-gateway', client_secret: 'crm-secret' },
        scope: 'crm.read crm.write',
        tokenFile: '/var/lib/rxmcp/tokens.json',
      },
    });
  });

  it('is refused, naming the variable, where one is not set', () => {
    const { METRICS_TOKEN: _unset, ...without } = ENV;
    expect(() => parseProxyConfig(FILE, TEXT, without)).toThrow(/the environment variable METRICS_TOKEN is not set/);
    const { CRM_CLIENT_SECRET: _secret, ...noSecret } = ENV;
    expect(() => parseProxyConfig(FILE, TEXT, noSecret)).toThrow(
      /servers\.crm\.oauth\.clientSecret: the environment variable CRM_CLIENT_SECRET is not set/,
    );
  });

  it('makes the tool policy, both rate limits and the concurrency cap, counting on its Redis', async () => {
    const config = parseProxyConfig(FILE, TEXT, ENV);
    const asked: string[] = [];
    const redis = {
      call: () => Promise.resolve([1, 60_000]),
      quit: () => Promise.resolve('OK'),
    } as unknown as RedisConnection;
    const built = await gatewayMiddleware(config.policies, undefined, (url) => {
      asked.push(url);
      return Promise.resolve(redis);
    });
    expect(asked).toEqual(['redis://redis.internal:6379']);
    expect(built.middleware).toHaveLength(4);
    await built.close();
  });
});
