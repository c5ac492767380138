/**
 * Which era a server speaks, found before the connection is built (spec 2026-07-28: Versioning →
 * Backward Compatibility; Transports → stdio and Streamable HTTP → Backward Compatibility): a
 * `server/discover` probe carrying our newest modern revision. A `DiscoverResult` or a
 * recognised modern error means a modern server; anything else (another error, an HTTP refusal
 * without a modern error body, a result that is no `DiscoverResult`, or silence past a timeout)
 * means a legacy one, which gets the `initialize` handshake.
 */
import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import { asyncScheduler, filter, firstValueFrom, map, merge, race, take, timer } from '../rx/rxjs';
import type { SchedulerLike } from '../rx/rxjs';
import type { Logger } from 'pino';
import { ConnectionClosedError, JsonRpcError, UnsupportedProtocolVersionError } from '../jsonrpc/errors';
import { request as makeRequest } from '../jsonrpc/message';
import type { JsonRpcErrorObject } from '../jsonrpc/message';
import { isModernRevision, META, ModernErrorCode } from '../connection/modern';
import { isLegacyRevision } from '../schema/revisions';
import type { Transport } from '../transport/transport';

/** What `server/discover` said of the server. */
export interface DiscoveredServer {
  readonly supportedVersions: readonly string[];
  readonly capabilities: Record<string, unknown>;
  readonly serverInfo?: Record<string, unknown>;
  readonly instructions?: string;
}

/** The outcome of negotiation: the era, and for a modern server the revision and what it said. */
export type EraDecision =
  | { readonly era: 'modern'; readonly revision: string; readonly discovered?: DiscoveredServer }
  | { readonly era: 'legacy'; readonly offer?: string; readonly why: string };

/** What the probe sends and how long it waits. */
export interface ProbeOptions {
  /** Modern revisions we speak, newest last. */
  readonly modern: readonly string[];
  /** Handshake revisions we speak, newest last (empty when a modern revision is pinned). */
  readonly legacy: readonly string[];
  readonly clientInfo: Record<string, unknown>;
  readonly capabilities: Record<string, unknown>;
  /** How long to wait for the answer before deciding the server is legacy. */
  readonly timeoutMs: number;
  readonly scheduler?: SchedulerLike;
  readonly logger: Logger;
}

/**
 * The server speaks no modern revision we offered, and the caller pinned one (or allowed no
 * handshake revision to fall back to).
 */
export class LegacyServerError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.LegacyServer;
  override readonly name: string = 'LegacyServerError';

  constructor(
    readonly revision: string,
    readonly why: string,
  ) {
    super(
      `The server does not speak protocol revision ${revision} (${why}); connect with protocolVersion 'auto' or a handshake revision`,
    );
  }
}

const MAX_PROBES = 3;
let probeCount = 0;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `DiscoverResult`, read leniently: `serverInfo` may sit in `_meta` (the spec) or at the top (older mocks). */
export function readDiscoverResult(result: Record<string, unknown>): DiscoveredServer | undefined {
  const { supportedVersions, capabilities } = result;
  if (!Array.isArray(supportedVersions) || !supportedVersions.every((v) => typeof v === 'string')) return undefined;
  if (!isObject(capabilities)) return undefined;
  const meta = isObject(result._meta) ? result._meta : {};
  const info = isObject(meta[META.serverInfo]) ? meta[META.serverInfo] : result.serverInfo;
  return {
    supportedVersions: supportedVersions as string[],
    capabilities,
    ...(isObject(info) ? { serverInfo: info } : {}),
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
  };
}

type ProbeAnswer =
  | { readonly kind: 'result'; readonly result: Record<string, unknown> }
  | { readonly kind: 'error'; readonly error: JsonRpcErrorObject }
  | { readonly kind: 'silence' };

/** Sends one `server/discover` on the bare transport and waits for its answer (or the timeout). */
async function probeOnce(transport: Transport, revision: string, options: ProbeOptions): Promise<ProbeAnswer> {
  const id = `rxmcp-discover-${++probeCount}`;
  const meta = {
    [META.protocolVersion]: revision,
    [META.clientCapabilities]: options.capabilities,
    [META.clientInfo]: options.clientInfo,
  };
  const answer$ = transport.incoming$.pipe(
    filter((frame): frame is Record<string, unknown> => isObject(frame) && frame.id === id && !('method' in frame)),
    map((frame): ProbeAnswer => {
      if (isObject(frame.result)) return { kind: 'result', result: frame.result };
      const error = isObject(frame.error) ? frame.error : {};
      const code = typeof error.code === 'number' ? error.code : 0;
      return { kind: 'error', error: { code, message: String(error.message ?? ''), data: error.data } };
    }),
  );
  const closed$ = transport.closed$.pipe(
    map((close): ProbeAnswer => {
      throw new ConnectionClosedError(close.reason, { method: 'server/discover' }, { cause: close.error });
    }),
  );
  const silence$ = timer(options.timeoutMs, options.scheduler ?? asyncScheduler).pipe(
    map((): ProbeAnswer => ({ kind: 'silence' })),
  );
  const outcome = firstValueFrom(race(merge(answer$, closed$), silence$).pipe(take(1)));
  transport.send(makeRequest(id, 'server/discover', { _meta: meta }));
  return outcome;
}

/** The newest of `ours` that `theirs` lists too. */
function newestShared(ours: readonly string[], theirs: readonly unknown[]): string | undefined {
  return [...ours].reverse().find((revision) => theirs.includes(revision));
}

/** What one probe answer means: a decision, or another revision to probe with. */
function interpret(
  answer: ProbeAnswer,
  revision: string,
  options: ProbeOptions,
): EraDecision | { readonly retryWith: string } {
  if (answer.kind === 'silence')
    return { era: 'legacy', why: `no answer to server/discover in ${options.timeoutMs} ms` };
  if (answer.kind === 'result') {
    const discovered = readDiscoverResult(answer.result);
    if (!discovered)
      return { era: 'legacy', why: 'server/discover was answered with something other than a DiscoverResult' };
    if (discovered.supportedVersions.includes(revision)) return { era: 'modern', revision, discovered };
    return pickFrom(discovered.supportedVersions, revision, options);
  }
  const { code, data } = answer.error;
  if (code === ModernErrorCode.UnsupportedProtocolVersion && isObject(data) && Array.isArray(data.supported)) {
    return pickFrom(data.supported, revision, options);
  }
  if (code === ModernErrorCode.HeaderMismatch || code === ModernErrorCode.MissingRequiredClientCapability) {
    return { era: 'modern', revision };
  }
  return { era: 'legacy', why: `server/discover was answered with error ${code} (${answer.error.message})` };
}

/** A modern server listed what it speaks: a shared modern revision, else a shared handshake one. */
function pickFrom(
  supported: readonly unknown[],
  requested: string,
  options: ProbeOptions,
): EraDecision | { readonly retryWith: string } {
  const modern = newestShared(options.modern, supported);
  if (modern !== undefined) return { retryWith: modern };
  const legacy = newestShared(options.legacy, supported);
  if (legacy !== undefined)
    return { era: 'legacy', offer: legacy, why: `the server speaks ${legacy}, not ${requested}` };
  throw new UnsupportedProtocolVersionError(
    requested,
    supported.filter((v): v is string => typeof v === 'string'),
  );
}

/**
 * Probes the server with `server/discover` and decides its era. Retries with another modern
 * revision when the server names one we share (at most three probes). Rejects with
 * `UnsupportedProtocolVersionError` when a modern server shares no revision with us, and with
 * `ConnectionClosedError` when the transport closes meanwhile. The transport is left open either way.
 */
export async function negotiateEra(transport: Transport, options: ProbeOptions): Promise<EraDecision> {
  let revision = options.modern.at(-1);
  if (revision === undefined) return { era: 'legacy', why: 'no modern revision offered' };
  for (let probe = 1; ; probe++) {
    const answer = await probeOnce(transport, revision, options);
    const outcome = interpret(answer, revision, options);
    if (!('retryWith' in outcome)) {
      options.logger.debug({ outcome }, 'server era decided');
      return outcome;
    }
    if (probe >= MAX_PROBES) {
      throw new JsonRpcError(
        ModernErrorCode.UnsupportedProtocolVersion,
        `server/discover kept refusing the protocol version after ${probe} attempts`,
      );
    }
    options.logger.debug(
      { refused: revision, next: outcome.retryWith },
      'retrying server/discover with another revision',
    );
    revision = outcome.retryWith;
  }
}

/** Splits the revisions a client speaks into the two families, newest last. */
export function revisionFamilies(revisions: readonly string[]): { modern: string[]; legacy: string[] } {
  return { modern: revisions.filter(isModernRevision), legacy: revisions.filter(isLegacyRevision) };
}
