import { ModernEndpoint } from '../connection/modern-endpoint';
import { MODERN_REVISIONS } from '../connection/modern';
import { LEGACY_REVISIONS } from '../schema/revisions';
import type { SessionConfig } from './server-sessions';

/** The endpoint of a server definition for requests of modern revisions (made when first asked for). */
export function createModernEndpoint(config: SessionConfig): ModernEndpoint {
  const parts = config.handlerParts;
  return new ModernEndpoint({
    info: config.info,
    instructions: config.instructions,
    capabilities: () => parts.capabilities(),
    handlers: config.handlers,
    // The handlers find the definition's parts through their owner; a modern request has no session.
    owner: { handlerParts: parts },
    supportedRevisions: config.supportedRevisions ?? [...LEGACY_REVISIONS, ...MODERN_REVISIONS],
    cacheHints: config.cacheHints,
    logger: config.logger,
    scheduler: config.scheduler,
  });
}
