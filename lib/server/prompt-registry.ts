import type { Observable } from '../rx/rxjs';
import type { Logger } from 'pino';
import type { HandlerOutput } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
import type { ValidationIssue } from '../jsonrpc/errors';
import type { Icon } from '../schema/base';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { promptSchemas } from '../schema/prompts';
import type { GetPromptRequestParams, GetPromptResult, Prompt, PromptMessage } from '../schema/prompts';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { Completer } from './completion';
import { requestFailure } from './handler-failures';
import type { FailurePolicy } from './handler-failures';
import { runHandler } from './handler-output';
import { OverRegistry } from './registry';
import type { ListChangeListener, Registration } from './registry';
import { adaptListed, adaptPromptResult, completeResult } from './revision-adapter';
import type { ServerContext } from './server-context';

/** One argument of a prompt, with an optional completer for its values. */
export interface PromptArgumentDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** A `prompts/get` without it answers -32602. Default false. */
  readonly required?: boolean;
  /** Suggests values (`completion/complete` with `ref/prompt`). */
  readonly complete?: Completer;
}

/** What a prompt handler returns. */
export interface PromptOutput {
  readonly description?: string;
  readonly messages: readonly PromptMessage[];
  readonly _meta?: Record<string, unknown>;
}

/** Registers one prompt: its metadata, arguments and the handler that renders it. */
export interface PromptDefinition {
  /**
   * OAuth scopes a caller's token must carry to use it, on a protected endpoint (`auth`); a token
   * without them is answered 403 `insufficient_scope` naming them.
   */
  readonly scopes?: readonly string[];
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly icons?: readonly Icon[];
  readonly _meta?: Record<string, unknown>;
  readonly arguments?: readonly PromptArgumentDefinition[];
  /** Register it disabled until `enable()`. Default true. */
  readonly enabled?: boolean;
  /**
   * Renders the prompt. `args` holds the arguments the client gave (the required ones are checked
   * first). May return the messages, a Promise of them or an Observable whose last value is them.
   */
  readonly handler: (
    args: Readonly<Record<string, string | undefined>>,
    context: ServerContext,
  ) => HandlerOutput<PromptOutput>;
}

/** A registered prompt's handle. */
export type RegisteredPrompt = Registration;

interface PromptEntry {
  readonly definition: PromptDefinition;
  readonly listing: Prompt;
  readonly arguments: ReadonlyMap<string, PromptArgumentDefinition>;
}

/** The prompts of a server. */
export interface PromptRegistry {
  add(definition: PromptDefinition): RegisteredPrompt;
  readonly size: number;
  readonly changed$: Observable<void>;
  /** Told of each change before `changed$` emits. */
  onChange: ListChangeListener | undefined;
  list(cursor: string | undefined, pageSize: number, revision: Revision): { prompts: Prompt[]; nextCursor?: string };
  /**
   * Answers `prompts/get`: an unknown prompt or a missing required argument answers -32602; a
   * handler's failure answers -32603 with its message (see `requestFailure`).
   */
  get(params: GetPromptRequestParams, context: ServerContext): HandlerOutput<GetPromptResult>;
  /** The completer of a prompt's argument; throws -32602 for an unknown prompt. */
  completer(prompt: string, argument: string): Completer | undefined;
  /** The scopes a prompt needs (none for an unknown one). */
  scopes(name: string): readonly string[];
}

interface PromptRegistryOptions {
  readonly validateResults: boolean;
  readonly logger: Logger;
  readonly failures: FailurePolicy;
}

/** The prompts of one server definition. */
class Prompts extends OverRegistry<PromptEntry> implements PromptRegistry {
  constructor(private readonly options: PromptRegistryOptions) {
    super('prompts');
  }

  add(definition: PromptDefinition): RegisteredPrompt {
    const listing: Record<string, unknown> = { name: definition.name };
    if (definition.title !== undefined) listing.title = definition.title;
    if (definition.description !== undefined) listing.description = definition.description;
    if (definition.arguments !== undefined) {
      listing.arguments = definition.arguments.map(({ complete: _completer, ...argument }) => argument);
    }
    if (definition.icons !== undefined) listing.icons = definition.icons;
    if (definition._meta !== undefined) listing._meta = definition._meta;
    const entry: PromptEntry = {
      definition,
      listing: listing as Prompt,
      arguments: new Map((definition.arguments ?? []).map((argument) => [argument.name, argument])),
    };
    return this.registry.registration(this.registry.add(definition.name, entry, definition.enabled ?? true));
  }

  list(cursor: string | undefined, pageSize: number, revision: Revision): { prompts: Prompt[]; nextCursor?: string } {
    const page = this.registry.page(cursor, pageSize);
    const features = featuresOf(revision);
    const prompts = page.entries.map((entry) => adaptListed(entry.definition.listing, 'prompt', features));
    return page.nextCursor === undefined ? { prompts } : { prompts, nextCursor: page.nextCursor };
  }

  get(params: GetPromptRequestParams, context: ServerContext): HandlerOutput<GetPromptResult> {
    const entry = this.lookup(params.name);
    const args = params.arguments ?? {};
    const missing: ValidationIssue[] = [...entry.arguments.values()]
      .filter((argument) => argument.required && args[argument.name] === undefined)
      .map((argument) => ({ path: `arguments.${argument.name}`, message: 'required, expected string' }));
    if (missing.length > 0) throw JsonRpcError.invalidParams(missing);
    const revision = context.revision;
    const { options } = this;
    return runHandler(
      () => entry.definition.handler(args, context),
      (value) => finishPrompt(options, entry, value, revision),
      (error) => requestFailure(options.failures, `Prompt ${params.name}`, error, context, { prompt: params.name }),
    );
  }

  completer(prompt: string, argument: string): Completer | undefined {
    return this.lookup(prompt).arguments.get(argument)?.complete;
  }

  scopes(name: string): readonly string[] {
    return this.registry.get(name)?.definition.definition.scopes ?? [];
  }

  private lookup(name: string): PromptEntry {
    const entry = this.registry.get(name)?.definition;
    if (!entry) throw JsonRpcError.invalidParams([{ path: 'name', message: `unknown prompt ${JSON.stringify(name)}` }]);
    return entry;
  }
}

/** A prompt handler's output as the result of `prompts/get`, checked when the server checks results. */
function finishPrompt(
  options: PromptRegistryOptions,
  entry: PromptEntry,
  output: unknown,
  revision: Revision,
): GetPromptResult {
  const log = options.logger;
  const produced = output as PromptOutput | undefined;
  if (!produced || !Array.isArray(produced.messages)) {
    log.error({ prompt: entry.definition.name }, 'prompt handler returned no messages');
    throw JsonRpcError.internalError();
  }
  const result = completeResult(
    adaptPromptResult({ ...produced, messages: [...produced.messages] } as GetPromptResult, featuresOf(revision)),
    revision,
  );
  if (options.validateResults) {
    const parsed = promptSchemas(revision).GetPromptResult.safeParse(result);
    if (!parsed.success) {
      const problem = describeIssues(toValidationIssues(parsed.error));
      log.error({ prompt: entry.definition.name, problem }, 'prompt handler returned an invalid result');
      throw JsonRpcError.internalError();
    }
  }
  return result;
}

/** Creates an empty prompt registry. */
export function createPromptRegistry(options: PromptRegistryOptions): PromptRegistry {
  return new Prompts(options);
}
