/**
 * Events in an aggregate (the triggers and events extension's design sketch, as merged on 2026-09-08;
 * experimental): event types are listed namespaced like tools (`<namespace><separator><name>`),
 * and each poll, stream and webhook subscription goes to the upstream that owns its type, under
 * the name that upstream knows; the occurrences it answers carry the namespaced name again.
 */
import { catchError, filter, forkJoin, from, map, Observable, of, throwError } from '../rx/rxjs';
import type { HandlerResult, RequestContext, RequestHandler } from '../connection/dispatcher';
import { passParamsThrough } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import type { McpClient } from '../client/client-api';
import { eventsClient } from '../client/events/events-client';
import { EventMethod } from '../schema/events';
import { unknownEventType } from '../server/events/event-catalog';
import { META } from '../schema/request-meta';
import { declared } from './aggregate-catalog';
import type { Member } from './aggregate-catalog';
import type { Routing } from './aggregate-handlers';
import { clientDeclaresEvents, declaredEvents } from './event-declarations';
import { relayStream } from './events-relay';
import { forwardedParams, forwardRequest } from './forward';
import type { DownstreamSession, FrontHandler } from './front';

type Params = Record<string, unknown>;

/** What routes one request about an event type: its upstream's client, and the names both ways. */
interface Routed {
  readonly member: Member;
  readonly client: McpClient;
  /** The params as the upstream knows them: its own name for the type. */
  readonly sent: Params;
  /** An upstream name as downstream clients know it. */
  readonly rename: (name: string) => string;
}

/** Whether a member declared events when it last connected. */
const declaresEvents = (member: Member) => declaredEvents(declared(member)) !== undefined;

/**
 * The member owning the event type shown as `name`, and the name it knows: the one whose
 * namespace prefixes it, else the first with an empty namespace that declared events.
 */
function ownerOf(routing: Routing, name: string): { readonly member: Member; readonly local: string } | undefined {
  const { names, members } = routing;
  const key = names.upstreamOfName(name);
  const prefixed = members.find((member) => member.key === key && declaresEvents(member));
  if (prefixed) return { member: prefixed, local: name.slice(names.name(prefixed.key, '').length) };
  const bare = members.find((member) => names.name(member.key, '') === '' && declaresEvents(member));
  return bare && { member: bare, local: name };
}

/** A poll's answer with each occurrence's name as downstream clients know it. */
function renamePoll(result: HandlerResult, rename: (name: string) => string): HandlerResult {
  if (!Array.isArray(result.events)) return result;
  return { ...result, events: result.events.map((event: unknown) => renameOccurrence(event, rename)) };
}

function renameOccurrence(occurrence: unknown, rename: (name: string) => string): unknown {
  if (typeof occurrence !== 'object' || occurrence === null) return occurrence;
  const { name } = occurrence as Params;
  return typeof name === 'string' ? { ...occurrence, name: rename(name) } : occurrence;
}

/**
 * A handler of a method naming an event type in `params.name`: finds its upstream (-32011 when
 * none serves it, -32000 naming an upstream that is not connected) and lets `send` forward it.
 */
function routedBy(
  routing: Routing,
  send: (
    routed: Routed,
    params: Params,
    context: RequestContext,
    owner: DownstreamSession | undefined,
  ) => Observable<HandlerResult>,
): RequestHandler {
  // The upstream checks the params, as it would for a direct caller.
  const handler: FrontHandler = (params, context, owner) => {
    const name = params.name;
    if (typeof name !== 'string')
      return throwError(() => JsonRpcError.invalidParams('the event type’s name is missing'));
    const found = ownerOf(routing, name);
    if (!found) return throwError(() => unknownEventType(name));
    const { member, local } = found;
    return member.links.use(owner, context, (link) => {
      // Off on the upstream hop unless the aggregate's client of it declared events too.
      if (!clientDeclaresEvents(link.client)) return throwError(() => unknownEventType(name));
      const rename = (upstreamName: string) => routing.names.name(member.key, upstreamName);
      return send({ member, client: link.client, sent: { ...params, name: local }, rename }, params, context, owner);
    });
  };
  return passParamsThrough(handler);
}

/** The merged `events/list`: each serving upstream's types, namespaced; the first of two alike kept. */
function listEvents(
  routing: Routing,
  context: RequestContext,
  owner: DownstreamSession | undefined,
): Observable<HandlerResult> {
  const each = routing.members
    .filter((member) => member.links.available && declaresEvents(member))
    .map((member) =>
      member.links
        .use(owner, context, (link) =>
          clientDeclaresEvents(link.client) ? from(eventsClient(link.client).list()) : of<readonly unknown[]>([]),
        )
        .pipe(
          map((types) => ({ member, types })),
          catchError((error: unknown) => {
            routing.logger.warn({ upstream: member.key, err: error }, 'upstream left out of the merged event types');
            return of({ member, types: [] as unknown[] });
          }),
        ),
    );
  return (each.length === 0 ? of([]) : forkJoin(each)).pipe(
    map((lists) => {
      const merged = new Map<string, unknown>();
      for (const { member, types } of lists)
        for (const type of types) {
          const shown = renameOccurrence(type, (name) => routing.names.name(member.key, name)) as Params;
          if (typeof shown.name === 'string' && !merged.has(shown.name)) merged.set(shown.name, shown);
        }
      return { events: [...merged.values()] };
    }),
  );
}

/**
 * Ends a relayed stream when its upstream leaves the aggregate, as a server ends the streams of a
 * type it no longer serves (design sketch: List changes and type removal): `terminated` with
 * -32011, then the request's final frame; the upstream stream is cancelled.
 */
function untilLeft(
  routing: Routing,
  member: Member,
  name: unknown,
  context: RequestContext,
): (stream$: Observable<HandlerResult>) => Observable<HandlerResult> {
  return (stream$) =>
    new Observable<HandlerResult>((subscriber) => {
      const gone = routing.left.pipe(filter((each) => each === member)).subscribe(() => {
        const error = unknownEventType(name).toJSON();
        context.notify(EventMethod.Terminated, { error, _meta: { [META.subscriptionId]: context.requestId } });
        subscriber.next({ _meta: {} });
        subscriber.complete();
      });
      subscriber.add(gone);
      subscriber.add(stream$.subscribe(subscriber));
    });
}

/** The aggregate's handlers of the events methods. */
export function aggregateEventHandlers(routing: Routing): Record<string, FrontHandler> {
  const { requestTimeoutMs, router } = routing.options;
  const forward = (
    method: string,
    routed: Routed,
    params: Params,
    context: RequestContext,
    owner: DownstreamSession | undefined,
  ) =>
    forwardRequest(
      routed.client,
      method,
      forwardedParams(routed.sent),
      context,
      requestTimeoutMs,
      router,
      params,
      owner,
    );
  return {
    [EventMethod.List]: (_params, context, owner) => listEvents(routing, context, owner),
    [EventMethod.Poll]: routedBy(routing, (routed, params, context, owner) =>
      forward(EventMethod.Poll, routed, params, context, owner).pipe(
        map((result) => renamePoll(result, routed.rename)),
      ),
    ),
    [EventMethod.Stream]: routedBy(routing, (routed, params, context) =>
      relayStream(routed.client, routed.sent, context, (sent) => renameOccurrence(sent, routed.rename) as Params).pipe(
        untilLeft(routing, routed.member, params.name, context),
      ),
    ),
    [EventMethod.Subscribe]: routedBy(routing, (routed, params, context, owner) =>
      forward(EventMethod.Subscribe, routed, params, context, owner),
    ),
    [EventMethod.Unsubscribe]: routedBy(routing, (routed, params, context, owner) =>
      forward(EventMethod.Unsubscribe, routed, params, context, owner),
    ),
  };
}
