import { Agent, request } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { encodeMessage } from '../transport/framing/encode';
import { forwardedRequestOf, PROOF_HEADER } from './forward-proof';
import type { ForwardProof } from './forward-proof';

/**
 * The header a forwarded request carries: the process that forwarded it. The owner serves such a
 * request itself only when its proof (`x-rxmcp-forward-proof`) holds; else it is routed as any other.
 */
export const FORWARDED_HEADER = 'x-rxmcp-forwarded-by';
/** The process a forwarded request is for; another process at that address (one started in its place) refuses it. */
export const OWNER_HEADER = 'x-rxmcp-owner';
/** How a process refuses a forwarded request meant for another: 421 Misdirected Request. */
export const MISDIRECTED = 421;

/**
 * What became of a forwarded request: answered, or not (with the error's code, and whether it was
 * sent on a pooled connection: an ECONNRESET there may be the owner closing an idle connection, and
 * the request may be sent again; otherwise it may have reached the owner, which may have run it).
 */
export type ForwardOutcome =
  { readonly answered: true } | { readonly answered: false; readonly code: string; readonly reused: boolean };

// Idle pooled connections are closed before a peer's keep-alive timeout (Node's default 5 s) can close them under a request.
const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });

/**
 * Sends a request to the process that owns its session (`target`: that process's endpoint URL and id)
 * and pipes the answer back as it comes, SSE streams included. The request's body, when it has
 * one, was read already (`body`). Resolves unanswered, with the error's code, when the owner cannot be connected to
 * before it answered (nothing was written then: the caller may try again or take the session
 * over). When the owner goes away mid-answer, the response is destroyed so that the client
 * sees the stream break and resumes it; when the client goes away, the forwarded request is.
 * The request carries a proof signed with `proof` (see {@link ForwardProof}) and the caller's own
 * credentials, which the owner checks again.
 */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  target: { readonly url: string; readonly owner: string },
  from: string,
  body: unknown,
  sessionId: string,
  proof: ForwardProof,
): Promise<ForwardOutcome> {
  const url = new URL(target.url);
  // A body JSON cannot write again (nested deeper than it follows) throws here, with nothing sent.
  const payload = body === undefined ? undefined : Buffer.from(encodeMessage(body));
  const signed = proof.sign(forwardedRequestOf(req, sessionId, from, target.owner, body));
  const headers: OutgoingHttpHeaders = {
    ...req.headers,
    [FORWARDED_HEADER]: from,
    [OWNER_HEADER]: target.owner,
    [PROOF_HEADER]: signed,
  };
  delete headers['transfer-encoding'];
  if (payload) headers['content-length'] = payload.length;
  return new Promise<ForwardOutcome>((resolve) => {
    const upstream = request({
      agent,
      host: url.hostname,
      port: url.port,
      method: req.method,
      path: req.url ?? url.pathname,
      headers,
    });
    let answered = false;
    const clientGone = () => {
      if (!res.writableFinished) upstream.destroy();
    };
    res.on('close', clientGone);
    upstream.on('response', (answer) => {
      if (answer.statusCode === MISDIRECTED) {
        // Another process listens where the owner did: the owner is gone.
        answer.resume();
        res.off('close', clientGone);
        resolve({ answered: false, code: 'MISDIRECTED', reused: false });
        return;
      }
      answered = true;
      resolve({ answered: true });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) res.flushHeaders();
      answer.on('data', (chunk: Buffer) => res.write(chunk));
      answer.on('end', () => res.end());
      // The owner went away mid-answer: break the client's stream so that it resumes elsewhere.
      answer.on('aborted', () => res.destroy());
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      res.off('close', clientGone);
      if (answered) {
        res.destroy();
        return;
      }
      resolve({ answered: false, code: error.code ?? 'UNKNOWN', reused: upstream.reusedSocket });
    });
    upstream.end(payload);
  });
}
