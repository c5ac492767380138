import { classify } from '../jsonrpc/classify';
import type { Classified } from '../jsonrpc/classify';
import { ErrorCode, JsonRpcError, ProtocolError } from '../jsonrpc/errors';
import { errorResponse, resultResponse } from '../jsonrpc/message';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../jsonrpc/message';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { checkParams, methodDefinition } from '../schema/methods';
import { batchRefusal, LATEST_LEGACY_REVISION } from '../schema/revisions';
import { MalformedFrame } from '../transport/transport';
import { hasCapability } from './capabilities';
import type { ConnectionCore, Replier } from './connection-core';
import type { ParamsOf } from '../schema/method-map';
import { PARTIAL_RESULT_METHOD, readPartialResult } from './partial-results';
import { passesParamsThrough } from './dispatcher';
import { relayOf, relayRequest } from './relay';
import { sendResponses } from './unencodable';
import type { Answer } from './dispatcher';
import { admitModernRequest, decorateModernResult, discoverResult, isRefusal, modernRevisionOf } from './modern';

/*
 * The inbound half of a connection: every frame the transport delivers is classified here and
 * routed to the lifecycle (initialize, initialized), the correlator (responses, progress), the
 * dispatcher (requests, cancellations) or answered with a JSON-RPC error.
 */

export function onFrame(conn: ConnectionCore, frame: unknown): void {
  if (frame instanceof MalformedFrame) {
    conn.log.warn({ reason: frame.reason }, 'frame is not JSON');
    conn.send(errorResponse(null, JsonRpcError.parseError(frame.reason).toJSON()));
    return;
  }
  if (conn.traceEnabled) conn.log.trace({ message: frame }, 'message in');
  const classified = classify(frame);
  if (classified.kind === 'batch') onBatch(conn, classified.messages);
  else if (failMalformedResponse(conn, frame, classified)) return;
  else onMessage(conn, classified, conn);
}

/** JSON-RPC batches exist only in 2025-03-26 (Basic → Messages); elsewhere an array is refused. */
function onBatch(conn: ConnectionCore, messages: readonly unknown[]): void {
  const revision = conn.revision;
  const why =
    revision === undefined
      ? 'JSON-RPC batches are not accepted before initialization (and initialize may not be batched)'
      : batchRefusal(revision);
  if (why !== undefined) {
    conn.log.warn({ size: messages.length, revision }, 'batch refused');
    conn.send(errorResponse(null, JsonRpcError.invalidRequest(why).toJSON()));
    return;
  }
  if (messages.length === 0) {
    conn.send(errorResponse(null, JsonRpcError.invalidRequest('empty batch').toJSON()));
    return;
  }
  const responses: JsonRpcResponse[] = [];
  let outstanding = 0;
  let scanned = false;
  const flush = () => {
    if (scanned && outstanding === 0 && responses.length > 0) sendResponses(conn, responses);
  };
  for (const item of messages) {
    const classified: Classified = Array.isArray(item)
      ? { kind: 'invalid', reason: 'a batch may not contain a batch', id: null }
      : classify(item);
    if (failMalformedResponse(conn, item, classified)) continue;
    const answers = classified.kind === 'request' || classified.kind === 'invalid';
    if (answers) outstanding++;
    onMessage(conn, classified, {
      answer: (response) => {
        if (response) responses.push(response);
        outstanding--;
        flush();
      },
    });
  }
  scanned = true;
  flush();
}

/**
 * A frame shaped like a response (no method; a result or an error) that is not a valid one, for
 * a request we await: that request fails with a ProtocolError naming the problem, and nothing
 * else is affected. Responses are never answered. True when handled here.
 */
function failMalformedResponse(conn: ConnectionCore, frame: unknown, classified: Classified): boolean {
  if (classified.kind !== 'invalid' || classified.id === null) return false;
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame) || 'method' in frame) return false;
  if (!('result' in frame) && !('error' in frame)) return false;
  const { reason } = classified;
  const peer = conn.role === 'server' ? 'client' : 'server';
  const failed = conn.correlator.fail(
    classified.id,
    (method) => new ProtocolError(`Malformed response to ${method} from the ${peer}: ${reason}`),
  );
  if (failed) conn.log.warn({ id: classified.id, reason }, 'malformed response');
  return failed;
}

function onMessage(conn: ConnectionCore, classified: Classified, reply: Replier): void {
  switch (classified.kind) {
    case 'request':
      onRequest(conn, classified.message, reply);
      return;
    case 'notification':
      onNotification(conn, classified.message);
      return;
    case 'result':
    case 'error':
      if (!conn.correlator.settle(classified.message)) {
        conn.log.warn(
          { id: classified.message.id },
          'response to no request in flight (late, cancelled or unknown id)',
        );
      }
      return;
    case 'invalid':
      conn.log.warn({ reason: classified.reason }, 'invalid JSON-RPC envelope');
      reply.answer(errorResponse(classified.id, JsonRpcError.invalidRequest(classified.reason).toJSON()));
      return;
    case 'batch':
      reply.answer(errorResponse(null, JsonRpcError.invalidRequest('a batch may not contain a batch').toJSON()));
  }
}

function onRequest(conn: ConnectionCore, request: JsonRpcRequest, reply: Replier): void {
  const { method } = request;
  if (conn.closed) return;
  // A server that holds no session serves modern requests (spec 2026-07-28: Versioning → a
  // dual-era server selects its behaviour from how the client opens).
  // An initialize that carries a modern `_meta` is a modern request for a removed method.
  if (conn.role === 'server' && conn.revision === undefined) {
    const modernRevision = modernRevisionOf(request.params);
    if (modernRevision !== undefined)
      conn.sendLifecycle({ type: 'peer.modernRequest', protocolVersion: modernRevision });
    if (conn.acceptsModern && (method !== 'initialize' || modernRevision !== undefined)) {
      onModernRequest(conn, request, reply);
      return;
    }
  }
  if (method === 'ping' && conn.acceptsPing) {
    reply.answer(resultResponse(request.id, {}));
    return;
  }
  if (method === 'initialize' && conn.role === 'server') {
    onInitialize(conn, request, reply);
    return;
  }
  if (!conn.acceptsRequests) {
    conn.log.warn({ id: request.id, method }, 'request before initialization');
    const message =
      conn.role === 'server'
        ? `Invalid request: ${method} arrived before initialization; send initialize first`
        : `Invalid request: ${method} arrived before the client finished initializing`;
    reply.answer(errorResponse(request.id, new JsonRpcError(ErrorCode.InvalidRequest, message).toJSON()));
    return;
  }
  const handler = conn.handlerFor(method);
  const negotiated = conn.revision ?? LATEST_LEGACY_REVISION;
  const definition = methodDefinition(method, negotiated);
  if (!handler || (definition && definition.kind !== 'request')) {
    reply.answer(errorResponse(request.id, JsonRpcError.methodNotFound(method).toJSON()));
    return;
  }
  if (definition?.capability && !hasCapability(conn.capabilities(), definition.capability)) {
    const error = JsonRpcError.methodNotFound(method, `the ${definition.capability} capability is not declared`);
    reply.answer(errorResponse(request.id, error.toJSON()));
    return;
  }
  let params = request.params ?? {};
  if (passesParamsThrough(handler)) {
    // A relayed handler passes its params through too: other handlers pay no look-up for relays.
    const relay = relayOf(handler);
    if (
      relay !== undefined &&
      relayRequest(conn.dispatcher, relay, request, params, negotiated, conn.options.owner, reply)
    )
      return;
  } else if (definition) {
    const parsed = checkParams(method, negotiated, params);
    if (parsed && !parsed.success) {
      reply.answer(errorResponse(request.id, JsonRpcError.invalidParams(toValidationIssues(parsed.error)).toJSON()));
      return;
    }
    if (parsed) params = parsed.data;
  }
  conn.dispatcher.dispatch(request, params, handler, negotiated, conn.options.owner, (answer: Answer) => {
    if (answer === null) reply.answer(null);
    else if ('error' in answer) reply.answer(errorResponse(request.id, answer.error));
    else reply.answer(resultResponse(request.id, answer.result));
  });
}

/** Serves one request of a modern revision: admitted on its own `_meta`, answered with `resultType` and our identity. */
function onModernRequest(conn: ConnectionCore, request: JsonRpcRequest, reply: Replier): void {
  // The transport's verified caller is the request's, as an HTTP exchange's is (a gateway's channel).
  const outcome = admitModernRequest(request, conn.modernPolicy, conn.transport);
  if (isRefusal(outcome)) {
    conn.log.warn({ id: request.id, method: request.method, code: outcome.error.code }, 'modern request refused');
    reply.answer(errorResponse(request.id, outcome.error.toJSON()));
    return;
  }
  const decoration = { serverInfo: conn.options.info, cacheHints: conn.options.cacheHints };
  const { method } = request;
  if (method === 'server/discover') {
    reply.answer(
      resultResponse(
        request.id,
        decorateModernResult(
          method,
          discoverResult(conn.supportedAll, conn.capabilities(), conn.options.instructions),
          decoration,
        ),
      ),
    );
    return;
  }
  const handler = conn.handlerFor(method);
  if (!handler) {
    reply.answer(errorResponse(request.id, JsonRpcError.methodNotFound(method).toJSON()));
    return;
  }
  conn.dispatcher.dispatch(
    request,
    outcome.params,
    handler,
    outcome.peer.revision,
    conn.options.owner,
    (answer: Answer) => {
      if (answer === null) reply.answer(null);
      else if ('error' in answer) reply.answer(errorResponse(request.id, answer.error));
      else reply.answer(resultResponse(request.id, decorateModernResult(method, answer.result, decoration)));
    },
    outcome.peer,
  );
}

function onInitialize(conn: ConnectionCore, request: JsonRpcRequest, reply: Replier): void {
  if (!conn.acceptsInitialize) {
    reply.answer(errorResponse(request.id, JsonRpcError.invalidRequest('the session is already initialized').toJSON()));
    return;
  }
  // The newest handshake revision has initialize, so its params are always checked.
  const parsed = checkParams('initialize', LATEST_LEGACY_REVISION, request.params ?? {});
  if (!parsed?.success) {
    const issues = parsed === undefined ? [] : toValidationIssues(parsed.error);
    reply.answer(errorResponse(request.id, JsonRpcError.invalidParams(issues).toJSON()));
    return;
  }
  const params = parsed.data;
  conn.sendLifecycle({
    type: 'peer.initialize',
    protocolVersion: params.protocolVersion,
    capabilities: params.capabilities,
    clientInfo: params.clientInfo,
  });
  // The lifecycle negotiated the revision; the connection took it, and the client's declarations, from its context.
  const revision = conn.revision!;
  conn.log.info({ revision, requested: params.protocolVersion, client: conn.peerInfo }, 'initialized');
  const result: Record<string, unknown> = {
    protocolVersion: revision,
    capabilities: conn.capabilities(),
    serverInfo: conn.options.info,
  };
  if (conn.options.instructions !== undefined) result.instructions = conn.options.instructions;
  reply.answer(resultResponse(request.id, result));
}

function onNotification(conn: ConnectionCore, message: JsonRpcNotification): void {
  const { method } = message;
  const raw = message.params ?? {};
  // Both are in every revision, so their params are always checked, and typed by the method map.
  if (method === 'notifications/cancelled') {
    const params = checkNotification(conn, method, raw);
    if (params === false) return;
    // Without a requestId (optional in 2025-11-25) it names no request, so it cancels none.
    if (params?.requestId !== undefined) conn.dispatcher.cancel(params.requestId, params.reason);
    deliverNotification(conn, message, params ?? raw);
    return;
  }
  if (method === 'notifications/progress') {
    const params = checkNotification(conn, method, raw);
    if (params === false) return;
    if (params !== undefined) conn.correlator.progress(params.progressToken, params);
    deliverNotification(conn, message, params ?? raw);
    return;
  }
  const checked = checkNotification(conn, method, raw);
  if (checked === false) return;
  const params = checked ?? raw;
  if (method === 'notifications/initialized') {
    if (conn.role === 'server') conn.sendLifecycle({ type: 'peer.initialized' });
  } else if (method === PARTIAL_RESULT_METHOD) {
    // SEP-2998, not in any revision's schema: checked here, and a malformed one dropped.
    const partial = readPartialResult(params);
    if (partial === undefined) conn.log.warn({ method }, 'invalid partial result dropped');
    else conn.correlator.partial(partial.token, partial.params);
  }
  deliverNotification(conn, message, params);
}

/**
 * A notification's params checked against the negotiated revision's schema: `false` when they fail
 * it (the notification is dropped, with a warning), undefined when the revision lacks the method.
 */
function checkNotification<M extends string>(
  conn: ConnectionCore,
  method: M,
  params: Record<string, unknown>,
): ParamsOf<M> | false | undefined {
  const parsed = checkParams(method, conn.revision ?? LATEST_LEGACY_REVISION, params);
  if (parsed === undefined || parsed.success) return parsed?.data;
  conn.log.warn({ method, problem: describeIssues(toValidationIssues(parsed.error)) }, 'invalid notification dropped');
  return false;
}

function deliverNotification(
  conn: ConnectionCore,
  message: JsonRpcNotification,
  params: Record<string, unknown>,
): void {
  conn.deliverNotification(params === message.params ? message : { ...message, params });
}
