/**
 * What a server sends to a client of an older revision: fields that revision's schema lacks are
 * removed, and content blocks it cannot carry become text. Objects are copied only when something
 * changes; for the latest revision everything is returned as it is.
 *
 * The choices, by revision:
 * - before 2025-11-25: no `icons` (tools, prompts, resources, templates) and no `execution` on tools;
 * - before 2025-06-18: no `title`, no `_meta` on listed items and content blocks, no `outputSchema`,
 *   and no `structuredContent` (its JSON is sent as a text block instead when the result has no
 *   other content); a `resource_link` block becomes a text block naming the link;
 * - before 2025-03-26: no tool `annotations`; an `audio` block becomes a text block saying audio was
 *   left out.
 */
import { isModernRevision } from '../connection/modern';
import type { CacheHint } from '../connection/modern';
import type { ContentBlock } from '../schema/content';
import { revisionAtLeast } from '../schema/revisions';
import type { RevisionFeatures } from '../schema/revisions';

type Item = Record<string, unknown>;

/** Which kind of listed item is being adapted. */
export type ListedKind = 'tool' | 'prompt' | 'resource' | 'template';

const isLatest = (features: RevisionFeatures) => features.icons && features.tasks;
const hasListingMeta = (features: RevisionFeatures) => revisionAtLeast(features.revision, '2025-06-18');

function without(item: Item, keys: readonly string[]): Item {
  if (!keys.some((key) => key in item)) return item;
  const copy = { ...item };
  for (const key of keys) delete copy[key];
  return copy;
}

/** The fields of a listed item (a `Tool`, `Prompt`, `Resource` or `ResourceTemplate`) the revision lacks. */
function droppedFields(kind: ListedKind, features: RevisionFeatures): string[] {
  const dropped: string[] = [];
  if (!features.icons) dropped.push('icons');
  if (!features.titles) dropped.push('title');
  if (!hasListingMeta(features)) dropped.push('_meta');
  if (kind === 'tool') {
    if (!features.tasks) dropped.push('execution');
    if (!features.structuredContent) dropped.push('outputSchema');
    if (!features.toolAnnotations) dropped.push('annotations');
  }
  return dropped;
}

/** A listed item as a client of `features.revision` may see it. */
export function adaptListed<T extends Item>(item: T, kind: ListedKind, features: RevisionFeatures): T {
  if (isLatest(features)) return item;
  let adapted = without(item, droppedFields(kind, features));
  if (kind === 'prompt' && !features.titles && Array.isArray(adapted.arguments)) {
    adapted = { ...adapted, arguments: (adapted.arguments as Item[]).map((argument) => without(argument, ['title'])) };
  }
  return adapted as T;
}

/** One content block as a client of `features.revision` can receive it. */
export function adaptContentBlock(block: ContentBlock, features: RevisionFeatures): ContentBlock {
  if (isLatest(features)) return block;
  if (block.type === 'audio' && !features.audioContent) {
    return {
      type: 'text',
      text: `[audio content (${String(block.mimeType)}) left out: this protocol revision cannot carry audio]`,
    };
  }
  if (block.type === 'resource_link' && !features.resourceLinks) {
    const label = typeof block.title === 'string' ? block.title : block.name;
    const description = typeof block.description === 'string' ? ` (${block.description})` : '';
    return { type: 'text', text: `Resource link: ${label} <${block.uri}>${description}` };
  }
  return hasListingMeta(features) ? block : (without(block, ['_meta']) as ContentBlock);
}

/** Content blocks as a client of `features.revision` can receive them. */
export function adaptContent(blocks: readonly ContentBlock[], features: RevisionFeatures): ContentBlock[] {
  if (isLatest(features)) return blocks as ContentBlock[];
  // Copied only from the first block that changes: most content passes every revision as it is.
  let adapted: ContentBlock[] | undefined;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as ContentBlock;
    const fit = adaptContentBlock(block, features);
    if (adapted === undefined && fit !== block) adapted = blocks.slice(0, i);
    adapted?.push(fit);
  }
  return adapted ?? (blocks as ContentBlock[]);
}

/** A `tools/call` result as a client of `features.revision` can receive it. */
export function adaptToolResult<T extends { content: readonly ContentBlock[] } & Item>(
  result: T,
  features: RevisionFeatures,
): T {
  if (isLatest(features)) return result;
  let content = adaptContent(result.content, features);
  let adapted: Item = content === result.content ? result : { ...result, content };
  if (!features.structuredContent && 'structuredContent' in adapted) {
    if (content.length === 0) content = [{ type: 'text', text: JSON.stringify(adapted.structuredContent) }];
    adapted = { ...without(adapted, ['structuredContent']), content };
  }
  return adapted as T;
}

/** A `prompts/get` result as a client of `features.revision` can receive it. */
export function adaptPromptResult<T extends { messages: readonly Item[] } & Item>(
  result: T,
  features: RevisionFeatures,
): T {
  if (isLatest(features)) return result;
  return {
    ...result,
    messages: result.messages.map((message) => ({
      ...message,
      content: adaptContentBlock(message.content as ContentBlock, features),
    })),
  };
}

/**
 * A complete result as a modern revision (2026-07-28 on) requires it, before it is checked:
 * `resultType` and, for a cacheable method, the caching hints the handler did not choose. Results
 * of handshake revisions pass unchanged.
 */
export function completeResult<T extends object>(result: T, revision: string, hint?: CacheHint): T {
  if (!isModernRevision(revision)) return result;
  // The added keys first: V8 adds a property to a spread copy slowly (see base/objects.ts).
  const out: Record<string, unknown> = hint
    ? { resultType: 'complete', ttlMs: hint.ttlMs, cacheScope: hint.cacheScope, ...result }
    : { resultType: 'complete', ...result };
  out.resultType ??= 'complete';
  if (hint) {
    out.ttlMs ??= hint.ttlMs;
    out.cacheScope ??= hint.cacheScope;
  }
  return out as T;
}
