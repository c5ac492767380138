import { readFileSync } from 'node:fs';
import { methodsOf } from '../../lib/schema/methods';
import type { MethodDirection } from '../../lib/schema/methods';
import type {
  ClientNotificationMap,
  ClientRequestMap,
  ParamsOf,
  RequestMethod,
  ResultOf,
  ServerNotificationMap,
  ServerRequestMap,
} from '../../lib/schema/method-map';
import { SUPPORTED_REVISIONS } from '../../lib/schema/revisions';
import type { CompleteRequestParams, CompleteResult } from '../../lib/schema/completion';
import type { ElicitRequestParams, ElicitResult } from '../../lib/schema/elicitation';
import type { EmptyResult } from '../../lib/schema/envelope';
import type { ProgressNotificationParams } from '../../lib/schema/notifications';
import type { CreateMessageRequestParams, CreateMessageResult } from '../../lib/schema/sampling';
import type { CallToolRequestParams, CallToolResult, ListToolsResult } from '../../lib/schema/tools';

interface Row {
  readonly kind: 'request' | 'notification';
  readonly method: string;
  readonly direction: MethodDirection;
  readonly definition: string;
  readonly result?: string;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require('../../scripts/method-map.cjs') as {
  generateFromDisk(): string;
  readRegistry(source: string): readonly Row[];
  OUTPUT: string;
};

/** Compiles only when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(_: Equal<A, B>) => undefined;

describe('method-map', () => {
  it('is what the generator writes from the registry today (run npm run method-map after changing it)', () => {
    expect(readFileSync(generator.OUTPUT, 'utf8')).toBe(generator.generateFromDisk());
  });

  it('reads every method of every supported revision from the registry, with its names and directions', () => {
    const rows = generator.readRegistry(readFileSync(require.resolve('../../lib/schema/methods.ts'), 'utf8'));
    const read = new Map(rows.map((row) => [row.method, row]));
    const seen = new Set<string>();
    for (const revision of SUPPORTED_REVISIONS) {
      for (const method of methodsOf(revision)) {
        seen.add(method.method);
        const row = read.get(method.method);
        expect({ method: method.method, kind: row?.kind, definition: row?.definition, result: row?.result }).toEqual({
          method: method.method,
          kind: method.kind,
          definition: method.definition,
          result: method.result,
        });
        // A row's direction holds in every revision, or is `both` where a later revision narrows it.
        expect([method.direction, 'both']).toContain(row?.direction);
      }
    }
    expect([...read.keys()].sort()).toEqual([...seen].sort());
  });

  it('types params and results per method and direction', () => {
    same<ParamsOf<'tools/call'>, CallToolRequestParams>(true);
    same<ResultOf<'tools/call'>, CallToolResult>(true);
    same<ResultOf<'tools/list'>, ListToolsResult>(true);
    same<ParamsOf<'completion/complete'>, CompleteRequestParams>(true);
    same<ResultOf<'completion/complete'>, CompleteResult>(true);
    same<ParamsOf<'sampling/createMessage'>, CreateMessageRequestParams>(true);
    same<ResultOf<'sampling/createMessage'>, CreateMessageResult>(true);
    same<ResultOf<'elicitation/create'>, ElicitResult>(true);
    same<ParamsOf<'elicitation/create'>, ElicitRequestParams>(true);
    same<ResultOf<'ping'>, EmptyResult>(true);
    same<ParamsOf<'notifications/progress'>, ProgressNotificationParams>(true);
    // Requests by who sends them; `ping` and the task methods go either way.
    same<ClientRequestMap['tools/call']['result'], CallToolResult>(true);
    same<ServerRequestMap['elicitation/create']['result'], ElicitResult>(true);
    same<ServerRequestMap['ping']['result'], ClientRequestMap['ping']['result']>(true);
    same<'tools/call' extends keyof ServerRequestMap ? true : false, false>(true);
    same<'sampling/createMessage' extends keyof ClientRequestMap ? true : false, false>(true);
    same<'notifications/initialized' extends keyof ServerNotificationMap ? true : false, false>(true);
    same<'notifications/message' extends keyof ClientNotificationMap ? true : false, false>(true);
    // A method the registry does not name keeps the untyped form.
    same<ParamsOf<'x-acme/frobnicate'>, Record<string, unknown>>(true);
    same<ResultOf<string>, Record<string, unknown>>(true);
    // @ts-expect-error a notification is no request
    const _notARequest: RequestMethod = 'notifications/progress';
    expect(_notARequest).toBeDefined();
  });
});
