import { ModernEndpoint } from '../connection/modern-endpoint';
import { MODERN_REVISIONS } from '../connection/modern';
import { LEGACY_REVISIONS } from '../schema/revisions';
import type { SessionConfig } from './server-sessions';

/** The server's endpoint for requests of modern revisions, made on first use. */
export class LazyModernEndpoint {
  private current: ModernEndpoint | undefined;

  constructor(private readonly config: SessionConfig) {}

  get endpoint(): ModernEndpoint {
    const { config } = this;
    return (this.current ??= new ModernEndpoint({
      info: config.info,
      instructions: config.instructions,
      capabilities: () => config.capabilities() as Record<string, unknown>,
      handlers: config.handlers,
      // The handlers find the definition's parts through their owner; a modern request has no session.
      owner: { handlerParts: config.handlerParts },
      supportedRevisions: config.supportedRevisions ?? [...LEGACY_REVISIONS, ...MODERN_REVISIONS],
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
