/**
 * Where a webhook may post (design sketch: Webhook Security → SSRF prevention): a callback URL
 * must match the server's allow-list and use `https`; its host is resolved at each delivery, every
 * address must be globally routable (or named in `allowAddresses`), and the request connects to
 * the address checked, with the URL's host in `Host` and TLS SNI, never following a redirect.
 */
import type * as NodeDns from 'node:dns';
import type * as NodeHttp from 'node:http';
import type * as NodeHttps from 'node:https';
import type * as NodeNet from 'node:net';
import { builtinModuleLoader } from '../../base/node-builtins';
import type { WebhookErrorCategory } from '../../schema/events';

/** Which callback URLs a server posts to. */
export interface WebhookTargetPolicy {
  /**
   * The callback URLs accepted: a string is a prefix of the URL (`https://hooks.example.com/`),
   * a RegExp is tested against the whole URL. A URL matching none is refused (-32602).
   */
  readonly allow: readonly (string | RegExp)[];
  /**
   * Addresses that are not globally routable but may be posted to all the same (exact IPv4 or
   * IPv6 text, e.g. `127.0.0.1` for a local receiver). A URL whose every address is named here
   * may also use `http`. Default none.
   */
  readonly allowAddresses?: readonly string[];
}

const load = <T>(id: string): T => {
  const loader = builtinModuleLoader();
  if (!loader) throw new Error(`webhook delivery needs Node's ${id}`);
  return loader(id) as T;
};

/** Whether `address` (IPv4 or IPv6 text) is globally routable: none of IANA's special-purpose blocks. */
export function isGloballyRoutable(address: string): boolean {
  const net = load<typeof NodeNet>('node:net');
  const blocked = new net.BlockList();
  for (const [prefix, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const)
    blocked.addSubnet(prefix, bits, 'ipv4');
  for (const [prefix, bits] of [
    ['::', 128],
    ['::1', 128],
    ['::ffff:0:0', 96],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001::', 23],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const)
    blocked.addSubnet(prefix, bits, 'ipv6');
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
  return family !== undefined && !blocked.check(address, family);
}

/** Checks a callback URL against the policy before any lookup; the reason when refused. */
export function refusedUrl(url: string, policy: WebhookTargetPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'delivery.url is not a URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'delivery.url must be https';
  if (parsed.username || parsed.password) return 'delivery.url must not carry credentials';
  const allowed = policy.allow.some((entry) => (typeof entry === 'string' ? url.startsWith(entry) : entry.test(url)));
  return allowed ? undefined : "delivery.url is not on the server's allow-list";
}

/** A callback URL resolved and checked: the address to connect to. */
export interface WebhookTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves a callback URL's host and checks every address it has (DNS rebinding is caught at
 * each delivery, not only at subscribe). Undefined when an address is not allowed, or `http` is
 * used toward one not named in `allowAddresses`.
 */
export async function resolveTarget(url: string, policy: WebhookTargetPolicy): Promise<WebhookTarget | undefined> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const dns = load<typeof NodeDns>('node:dns');
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  const named = (address: string) => policy.allowAddresses?.includes(address) === true;
  if (found.length === 0) return undefined;
  if (!found.every(({ address }) => named(address) || isGloballyRoutable(address))) return undefined;
  if (parsed.protocol === 'http:' && !found.every(({ address }) => named(address))) return undefined;
  const first = found[0]!;
  return { url: parsed, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** How a post went: the status, or the category of its failure. */
export type PostOutcome = { readonly status: number } | { readonly failure: WebhookErrorCategory };

/** Posts `body` to the checked target, connecting to its address only. Never rejects. */
export function postWebhook(
  target: WebhookTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const secure = target.url.protocol === 'https:';
  const client = secure ? load<typeof NodeHttps>('node:https') : load<typeof NodeHttp>('node:http');
  return new Promise<PostOutcome>((resolve) => {
    const request = client.request(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      // Connect to the address that was checked, whatever the name resolves to now.
      lookup: (_host: string, options: { all?: boolean }, done: (...args: unknown[]) => void) =>
        options.all
          ? done(null, [{ address: target.address, family: target.family }])
          : done(null, target.address, target.family),
      timeout: timeoutMs,
      agent: false,
    } as NodeHttps.RequestOptions);
    request.on('response', (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    request.on('timeout', () => {
      request.destroy();
      resolve({ failure: 'timeout' });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const tls = /CERT|SSL|TLS/.test(error.code ?? '');
      resolve({ failure: tls ? 'tls_error' : 'connection_refused' });
    });
    request.end(body);
  });
}
