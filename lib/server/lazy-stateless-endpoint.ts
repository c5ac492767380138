import { StatelessEndpoint } from '../connection/stateless-endpoint';
import { STATELESS_REVISIONS } from '../connection/stateless';
import { STATEFUL_REVISIONS } from '../schema/revisions';
import type { SessionConfig } from './server-sessions';

/** The server's endpoint for requests of stateless revisions, made on first use. */
export class LazyStatelessEndpoint {
  private current: StatelessEndpoint | undefined;

  constructor(private readonly config: SessionConfig) {}

  get endpoint(): StatelessEndpoint {
    const { config } = this;
    return (this.current ??= new StatelessEndpoint({
      info: config.info,
      instructions: config.instructions,
      capabilities: () => config.capabilities() as Record<string, unknown>,
      handlers: config.handlers,
      // The handlers find the definition's parts through their owner; a stateless request has no session.
      owner: { handlerParts: config.handlerParts },
      supportedRevisions: config.supportedRevisions ?? [...STATEFUL_REVISIONS, ...STATELESS_REVISIONS],
      cacheHints: config.cacheHints,
      logger: config.logger,
      scheduler: config.scheduler,
    }));
  }

  close(reason: string): void {
    this.current?.close(reason);
    this.current = undefined;
  }
}
