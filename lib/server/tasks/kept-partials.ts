/**
 * What tasks do with partial results (SEP-2998), installed by `partialResults()` through
 * `useTaskPartials` (a server without the extension has none of it, nor does its bundle).
 *
 * A 2025-11-25 task's request was answered at once: its pieces go out in its session, each with the
 * call's token and the task's id. A task of the 2026-07-28 tasks extension (SEP-2663): the request
 * that made the task was answered with the task's handle and no session is left to carry
 * notifications, so the task keeps its pieces in its record (the newest, within a bound) and
 * `tasks/get` gives them to a caller that declared partial results: the SEP's open question on
 * tasks, option (a), "accumulate partials server-side and surface them via `tasks/get`".
 *
 * On the wire, a `tasks/get` answer carries them in `_meta["io.modelcontextprotocol/partial-results"]`:
 * `{ pieces, dropped? }`, each piece the params a `notifications/tools/partial_result` would have
 * (the call's token, `seq`, `content`, `structuredContent`, `final`, the task's id), from the
 * `nextSeq` the request asks for in the same `_meta` key (`{ nextSeq }`; 0 when absent); `dropped`
 * counts the oldest pieces the server let go to stay within its bound.
 */
import { isRecord } from '../../base/objects';
import type { HandlerResult, RequestContext } from '../../connection/dispatcher';
import {
  clientDeclaresPartialResults,
  declaresPartialResults,
  PARTIAL_RESULT_METHOD,
  PARTIAL_RESULTS_EXTENSION,
  partialResultParams,
  partialResultToken,
} from '../../connection/partial-results';
import { utf8Length } from '../../base/text';
import type { Session } from '../session';
import type { KeptPartialsLimits, TaskPartials } from './task-handlers';
import type { TaskRunner } from './task-runner';
import type { TaskSpec } from './task-spec';
import type { TaskRecord } from './task-store';

/** How much of its partial results one task keeps: the newest pieces that fit both limits. */
export interface KeptPartialsBound {
  /** The most pieces kept. */
  readonly maxPieces: number;
  /** The most UTF-8 bytes of JSON the pieces kept take. */
  readonly maxBytes: number;
}

/** The default of `TasksOptions.maxPartialResultsPerTask`. */
export const DEFAULT_MAX_PARTIAL_RESULTS_PER_TASK = 100;
/** The default of `TasksOptions.maxPartialResultBytesPerTask`: 64 KiB. */
export const DEFAULT_MAX_PARTIAL_RESULT_BYTES_PER_TASK = 64 * 1024;

type Kept = NonNullable<TaskRecord['partials']>;

const sizeOf = (piece: Readonly<Record<string, unknown>>): number => utf8Length(JSON.stringify(piece));

/**
 * What a task keeps once `piece` is added: the oldest pieces go, counted in `dropped`, until the
 * rest fit the bound (a piece larger than `maxBytes` on its own goes too).
 */
export function keepPiece(
  kept: Kept | undefined,
  piece: Readonly<Record<string, unknown>>,
  bound: KeptPartialsBound,
): Kept {
  const pieces = [...(kept?.pieces ?? []), piece];
  let bytes = (kept?.bytes ?? 0) + sizeOf(piece);
  let first = 0;
  while (first < pieces.length && (pieces.length - first > bound.maxPieces || bytes > bound.maxBytes)) {
    bytes -= sizeOf(pieces[first]!);
    first += 1;
  }
  return { pieces: first === 0 ? pieces : pieces.slice(first), dropped: (kept?.dropped ?? 0) + first, bytes };
}

/** The `nextSeq` a `tasks/get` asks pieces from (its `_meta`), 0 when it names none or a malformed one. */
function nextSeqOf(meta: Record<string, unknown> | undefined): number {
  const asked = meta?.[PARTIAL_RESULTS_EXTENSION];
  const nextSeq = isRecord(asked) ? asked.nextSeq : undefined;
  return typeof nextSeq === 'number' && Number.isInteger(nextSeq) && nextSeq > 0 ? nextSeq : 0;
}

/**
 * A `tasks/get` answer with the pieces the task keeps from the `nextSeq` asked for, when its
 * caller declared partial results; else the answer as it is (the pieces stay for a caller that did).
 */
export function withKeptPartials(answer: HandlerResult, record: TaskRecord, context: RequestContext): HandlerResult {
  const kept = record.partials;
  if (kept === undefined || !clientDeclaresPartialResults(context.peer?.clientCapabilities)) return answer;
  const nextSeq = nextSeqOf(context.meta);
  const pieces = kept.pieces.filter((piece) => (piece.seq as number) >= nextSeq);
  const carried = kept.dropped > 0 ? { pieces, dropped: kept.dropped } : { pieces };
  const meta = isRecord(answer._meta) ? answer._meta : undefined;
  return { ...answer, _meta: { ...meta, [PARTIAL_RESULTS_EXTENSION]: carried } };
}

/**
 * Where an extension task's partial results go: into its record, within `bound`, when the call
 * asked for them with a token, both sides declared them, and the server serves the extension.
 * Otherwise nothing is said and the runner makes each piece the task's status message, as before.
 */
export function partialsKept(
  context: RequestContext,
  serverCapabilities: Record<string, unknown>,
  runner: TaskRunner,
  limits: KeptPartialsLimits,
): Pick<TaskSpec, 'onPartial'> {
  const token = partialResultToken(context.meta, context.peer?.clientCapabilities);
  if (token === undefined || !declaresPartialResults(serverCapabilities)) return {};
  const bound: KeptPartialsBound = {
    maxPieces: limits.maxPieces ?? DEFAULT_MAX_PARTIAL_RESULTS_PER_TASK,
    maxBytes: limits.maxBytes ?? DEFAULT_MAX_PARTIAL_RESULT_BYTES_PER_TASK,
  };
  return {
    onPartial: (piece, seq, taskId) =>
      runner.keepPartials(taskId, (kept) => keepPiece(kept, partialResultParams(token, seq, piece, taskId), bound)),
  };
}

const DROPPABLE = { droppable: true } as const;

/**
 * How a 2025-11-25 task's partial results reach its caller: when the caller asked for them with a
 * token and both sides declared them, each piece goes out in the session as
 * `notifications/tools/partial_result` with the call's token and the task's id, since the request
 * that made the task was answered at once. Without that, pieces become the task's progress.
 */
export function partialsInSession(context: RequestContext, session: Session | undefined): Pick<TaskSpec, 'onPartial'> {
  if (session === undefined) return {};
  const token = partialResultToken(context.meta, session.connection.peerCapabilities);
  if (token === undefined || !declaresPartialResults(session.connection.capabilities())) return {};
  return {
    onPartial: (piece, seq, taskId) => {
      if (!session.operating) return;
      // A piece may be missed (the task's result is the whole answer): a slow reader's transport skips it.
      session.connection.notify(PARTIAL_RESULT_METHOD, partialResultParams(token, seq, piece, taskId), DROPPABLE);
    },
  };
}

/** What `partialResults()` installs for tasks. */
export const TASK_PARTIALS: TaskPartials = {
  inSession: partialsInSession,
  kept: partialsKept,
  withKept: withKeptPartials,
};
