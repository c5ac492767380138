/**
 * Roots: the directories or files a client exposes to a server; from 2026-07-28 asked for as an
 * input request of a multi round-trip request.
 */
import { z } from 'zod';
import { chooseAsOlder, MetaSchema, perRevision, since, V2025_06_18, V2026_07_28 } from './build';
import { clientResultBase, envelopeSchemas, notificationShape, serverRequestShape } from './envelope';
import { LATEST_LEGACY_REVISION } from './revisions';

/** Builds the roots schemas of one revision. */
export const rootSchemas = perRevision((revision) => {
  const { RequestParams, NotificationParams } = envelopeSchemas(revision);
  const params = chooseAsOlder(revision, V2026_07_28, z.looseObject({ _meta: MetaSchema.optional() }), RequestParams);
  const Root = z.looseObject({
    uri: z.string(),
    name: z.string().optional(),
    _meta: since(revision, V2025_06_18, MetaSchema).optional(),
  });
  return {
    Root,
    ListRootsRequest: z.looseObject(serverRequestShape(revision, 'roots/list', params.optional())),
    ListRootsResult: clientResultBase(revision).extend({ roots: z.array(Root) }),
    RootsListChangedNotification: z.looseObject(
      notificationShape(revision, 'notifications/roots/list_changed', NotificationParams.optional()),
    ),
  };
});

const latest = () => rootSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof rootSchemas>;

/** A root: a `file://` URI the server may work within, with an optional name. */
export type Root = z.infer<Schemas['Root']>;

/** `roots/list`: the server asks the client for its roots. */
export const ListRootsRequestSchema = z.lazy(() => latest().ListRootsRequest);
/** A `roots/list` request. */
export type ListRootsRequest = z.infer<typeof ListRootsRequestSchema>;
/** The client's answer to `roots/list`: the roots it exposes. */
export type ListRootsResult = z.infer<Schemas['ListRootsResult']>;

/** A `notifications/roots/list_changed` notification. */
export type RootsListChangedNotification = z.infer<Schemas['RootsListChangedNotification']>;
