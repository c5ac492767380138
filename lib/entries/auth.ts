// rxmcp/auth: MCP authorization (OAuth 2.1): the client that obtains tokens for a protected server,
// and the resource server that checks them. `jose` is loaded only when a JWT is signed or verified.
export { createOAuthClient } from '../auth/oauth-client';
export type { AssertionTarget, OAuthClient, OAuthClientOptions } from '../auth/oauth-client';
export { OAuthError } from '../auth/errors';
export { createFileOAuthStorage, createMemoryOAuthStorage } from '../auth/storage';
export type { OAuthClientInformation, OAuthRecord, OAuthStorage, OAuthTokens } from '../auth/storage';
export type { IdentityAssertionExchange, SigningKey } from '../auth/assertions';
export { createResourceServer, introspectionVerifier, InvalidTokenError, jwtVerifier } from '../auth/resource-server';
export { principalOf } from '../transport/transport';
export type {
  IntrospectionVerifierOptions,
  InvalidTokenReason,
  JwtVerifierOptions,
  ResourceServerOptions,
  TokenVerifier,
} from '../auth/resource-server';
export type { AuthChallengeAnswer, AuthProvider, AuthRequest } from '../transport/http-client/auth-provider';
export type { AuthInfo, AuthOutcome, AuthRefusal, RequestAuthenticator } from '../transport/http/request-auth';
export { startLoopbackRedirect } from '../auth/loopback-redirect';
export type { LoopbackRedirect, LoopbackRedirectOptions } from '../auth/loopback-redirect';
