import {
  checkResult,
  hasCacheableResult,
  isKnownMethod,
  mayRequireInput,
  methodDefinition,
  methodsOf,
  paramsSchemaFor,
  resultSchemaFor,
} from '../../lib/schema/methods';
import { methodSchema, schemasFor } from '../../lib/schema/definitions';
import type * as Messages from '../../lib/schema/messages';
import type * as Methods from '../../lib/schema/methods';
import type * as Sampling from '../../lib/schema/sampling';
import { LEGACY_REVISIONS, SUPPORTED_REVISIONS } from '../../lib/schema/revisions';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('methodDefinition', () => {
  it('gives direction, kind and the capability the receiver must have declared', () => {
    expect(methodDefinition('resources/subscribe', '2025-06-18')).toMatchObject({
      kind: 'request',
      direction: 'client-to-server',
      capability: 'resources.subscribe',
    });
    expect(methodDefinition('sampling/createMessage', '2024-11-05')).toMatchObject({
      direction: 'server-to-client',
      capability: 'sampling',
    });
    expect(methodDefinition('roots/list', '2025-11-25')?.capability).toBe('roots');
    expect(methodDefinition('logging/setLevel', '2025-11-25')?.capability).toBe('logging');
  });

  it('needs no completions capability in 2024-11-05, which did not define one', () => {
    expect(methodDefinition('completion/complete', '2024-11-05')?.capability).toBeUndefined();
    expect(methodDefinition('completion/complete', '2025-03-26')?.capability).toBe('completions');
  });

  it('marks ping, progress and cancellation as going both ways in the handshake revisions', () => {
    for (const method of ['ping', 'notifications/progress', 'notifications/cancelled']) {
      for (const revision of LEGACY_REVISIONS) expect(methodDefinition(method, revision)?.direction).toBe('both');
    }
  });

  it('has only servers report progress from 2026-07-28, where clients answer no requests', () => {
    expect(methodDefinition('notifications/progress', '2026-07-28')?.direction).toBe('server-to-client');
    expect(methodDefinition('notifications/cancelled', '2026-07-28')?.direction).toBe('both');
    expect(methodDefinition('ping', '2026-07-28')).toBeUndefined();
  });

  it('is undefined for a method the revision lacks', () => {
    expect(methodDefinition('elicitation/create', '2025-03-26')).toBeUndefined();
    expect(methodDefinition('elicitation/create', '2025-06-18')?.capability).toBe('elicitation');
    expect(methodDefinition('tasks/get', '2025-06-18')).toBeUndefined();
    expect(methodDefinition('no/such/method', '2025-11-25')).toBeUndefined();
  });

  it('has the tasks methods from 2025-11-25, in both directions', () => {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'notifications/tasks/status']) {
      expect(methodDefinition(method, '2025-11-25')).toMatchObject({ direction: 'both', since: '2025-11-25' });
    }
    expect(methodDefinition('tasks/list', '2025-11-25')?.capability).toBe('tasks.list');
  });

  it('says which requests may be task-augmented, only from 2025-11-25', () => {
    expect(methodDefinition('tools/call', '2025-11-25')?.taskAugmentable).toBe(true);
    expect(methodDefinition('tools/call', '2025-06-18')?.taskAugmentable).toBeUndefined();
    expect(methodDefinition('tools/list', '2025-11-25')?.taskAugmentable).toBeUndefined();
  });

  it('has no tasks in 2026-07-28, which moved them to an extension', () => {
    expect(methodDefinition('tools/call', '2026-07-28')?.taskAugmentable).toBeUndefined();
    for (const method of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'notifications/tasks/status']) {
      expect(methodDefinition(method, '2026-07-28')).toBeUndefined();
    }
  });

  it('ends the handshake, ping, setLevel, resource subscriptions and server requests at 2025-11-25', () => {
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
      'sampling/createMessage',
      'elicitation/create',
      'roots/list',
      'notifications/initialized',
      'notifications/roots/list_changed',
      'notifications/elicitation/complete',
    ]) {
      expect(methodDefinition(method, '2025-11-25')).toMatchObject({ method });
      expect(methodDefinition(method, '2025-11-25')?.until).toBe('2025-11-25');
      expect(methodDefinition(method, '2026-07-28')).toBeUndefined();
    }
  });

  it('has discovery, listen and its acknowledgement from 2026-07-28', () => {
    expect(methodDefinition('server/discover', '2026-07-28')).toMatchObject({
      kind: 'request',
      direction: 'client-to-server',
      definition: 'DiscoverRequest',
      result: 'DiscoverResult',
      since: '2026-07-28',
    });
    expect(methodDefinition('subscriptions/listen', '2026-07-28')).toMatchObject({
      kind: 'request',
      direction: 'client-to-server',
      result: 'SubscriptionsListenResult',
    });
    expect(methodDefinition('notifications/subscriptions/acknowledged', '2026-07-28')).toMatchObject({
      kind: 'notification',
      direction: 'server-to-client',
    });
    expect(methodDefinition('server/discover', '2025-11-25')).toBeUndefined();
  });

  it('says which 2026-07-28 requests may answer for input and which results are cacheable', () => {
    const inputRequired = methodsOf('2026-07-28')
      .filter((m) => m.inputRequired)
      .map((m) => m.method);
    expect(inputRequired.sort()).toEqual(['prompts/get', 'resources/read', 'tools/call']);
    const cacheable = methodsOf('2026-07-28')
      .filter((m) => m.cacheable)
      .map((m) => m.method);
    expect(cacheable.sort()).toEqual([
      'prompts/list',
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'server/discover',
      'tools/list',
    ]);
    expect(mayRequireInput('tools/call', '2026-07-28')).toBe(true);
    expect(mayRequireInput('tools/call', '2025-11-25')).toBe(false);
    expect(mayRequireInput('tools/list', '2026-07-28')).toBe(false);
    expect(hasCacheableResult('tools/list', '2026-07-28')).toBe(true);
    expect(hasCacheableResult('tools/list', '2025-11-25')).toBe(false);
    expect(hasCacheableResult('tools/call', '2026-07-28')).toBe(false);
  });

  it('names the capability a sender needs for its list_changed notifications', () => {
    expect(methodDefinition('notifications/tools/list_changed', '2025-11-25')?.senderCapability).toBe(
      'tools.listChanged',
    );
    expect(methodDefinition('notifications/message', '2025-11-25')?.senderCapability).toBe('logging');
  });
});

describe('methodsOf', () => {
  it('grows with each handshake revision', () => {
    const counts = LEGACY_REVISIONS.map((revision) => methodsOf(revision).length);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(methodsOf('2025-11-25').map((m) => m.method)).toContain('notifications/elicitation/complete');
  });

  it('lists the methods of 2026-07-28', () => {
    expect(
      methodsOf('2026-07-28')
        .map((m) => m.method)
        .sort(),
    ).toEqual([
      'completion/complete',
      'notifications/cancelled',
      'notifications/message',
      'notifications/progress',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
      'notifications/resources/updated',
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      'prompts/get',
      'prompts/list',
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'server/discover',
      'subscriptions/listen',
      'tools/call',
      'tools/list',
    ]);
  });

  it('knows every method of any supported revision', () => {
    expect(isKnownMethod('elicitation/create')).toBe(true);
    expect(isKnownMethod('initialize')).toBe(true);
    expect(isKnownMethod('server/discover')).toBe(true);
    expect(isKnownMethod('subscriptions/listen')).toBe(true);
    expect(isKnownMethod('tasks/update')).toBe(false);
    expect(isKnownMethod('no/such/method')).toBe(false);
  });
});

describe('paramsSchemaFor', () => {
  it('validates params of the revision', () => {
    const params = paramsSchemaFor('tools/call', '2025-06-18')!;
    expect(params.safeParse({ name: 'add', arguments: { a: 1 } }).success).toBe(true);
    expect(params.safeParse({ arguments: {} }).success).toBe(false);
  });

  it('unwraps optional params so that `params ?? {}` can be checked', () => {
    const params = paramsSchemaFor('tools/list', '2025-11-25')!;
    expect(params.safeParse({}).success).toBe(true);
    expect(params.safeParse({ cursor: 1 }).success).toBe(false);
    expect(params.safeParse(undefined).success).toBe(false);
  });

  it('follows the revision: completion context is checked from 2025-06-18', () => {
    const value = { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' }, context: 'x' };
    expect(paramsSchemaFor('completion/complete', '2025-03-26')!.safeParse(value).success).toBe(true);
    expect(paramsSchemaFor('completion/complete', '2025-06-18')!.safeParse(value).success).toBe(false);
  });

  it('requires the request _meta from 2026-07-28', () => {
    const params = paramsSchemaFor('tools/list', '2026-07-28')!;
    expect(params.safeParse({}).success).toBe(false);
    expect(params.safeParse({ _meta: meta }).success).toBe(true);
    expect(params.safeParse({ _meta: meta, cursor: 1 }).success).toBe(false);
  });

  it('is memoised and undefined for unknown methods', () => {
    expect(paramsSchemaFor('ping', '2025-11-25')).toBe(paramsSchemaFor('ping', '2025-11-25'));
    expect(paramsSchemaFor('elicitation/create', '2024-11-05')).toBeUndefined();
  });
});

describe('resultSchemaFor', () => {
  it('gives the result schema of requests and nothing for notifications', () => {
    expect(resultSchemaFor('tools/call', '2025-11-25')!.safeParse({ content: [] }).success).toBe(true);
    expect(resultSchemaFor('tools/call', '2025-11-25')!.safeParse({}).success).toBe(false);
    expect(resultSchemaFor('ping', '2025-11-25')!.safeParse({}).success).toBe(true);
    expect(resultSchemaFor('notifications/progress', '2025-11-25')).toBeUndefined();
    expect(resultSchemaFor('tools/call', '2025-11-25')).toBe(resultSchemaFor('tools/call', '2025-11-25'));
  });

  it('gives CreateTaskResult for a task-augmented request of a method that allows it', () => {
    const task = { taskId: 't', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttl: null };
    expect(resultSchemaFor('tools/call', '2025-11-25', { taskAugmented: true })!.safeParse({ task }).success).toBe(
      true,
    );
    expect(resultSchemaFor('tools/list', '2025-11-25', { taskAugmented: true })!.safeParse({ task }).success).toBe(
      false,
    );
    expect(resultSchemaFor('tools/call', '2025-06-18', { taskAugmented: true })!.safeParse({ task }).success).toBe(
      false,
    );
    expect(resultSchemaFor('tools/call', '2026-07-28', { taskAugmented: true })!.safeParse({ task }).success).toBe(
      false,
    );
  });

  it('gives InputRequiredResult for the interim answer of a method that may require input', () => {
    const interim = { resultType: 'input_required', requestState: 's' };
    expect(resultSchemaFor('tools/call', '2026-07-28', { inputRequired: true })!.safeParse(interim).success).toBe(true);
    expect(resultSchemaFor('tools/list', '2026-07-28', { inputRequired: true })).toBeUndefined();
    expect(resultSchemaFor('tools/call', '2025-11-25', { inputRequired: true })).toBeUndefined();
  });

  it('requires resultType on every result from 2026-07-28', () => {
    expect(resultSchemaFor('tools/call', '2026-07-28')!.safeParse({ content: [] }).success).toBe(false);
    expect(
      resultSchemaFor('tools/call', '2026-07-28')!.safeParse({ resultType: 'complete', content: [] }).success,
    ).toBe(true);
    expect(
      resultSchemaFor('completion/complete', '2026-07-28')!.safeParse({ completion: { values: [] } }).success,
    ).toBe(false);
  });
});

describe('checkResult', () => {
  const elicit = {
    method: 'elicitation/create',
    params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } },
  };

  it.each(['tools/call', 'prompts/get', 'resources/read'])(
    'accepts an InputRequiredResult for %s in 2026-07-28, and checks it as one',
    (method) => {
      const interim = { resultType: 'input_required', inputRequests: { confirm: elicit }, requestState: 's' };
      expect(checkResult(method, '2026-07-28', interim)).toEqual({ success: true, data: interim });
      const broken = { resultType: 'input_required', inputRequests: { confirm: { method: 'tools/call' } } };
      expect(checkResult(method, '2026-07-28', broken)?.success).toBe(false);
    },
  );

  it('checks a complete result of a method that may require input as the complete result', () => {
    const result = { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
    expect(checkResult('tools/call', '2026-07-28', result)?.success).toBe(true);
    expect(checkResult('tools/call', '2026-07-28', { resultType: 'complete' })?.success).toBe(false);
    expect(checkResult('prompts/get', '2026-07-28', { resultType: 'complete', messages: [] })?.success).toBe(true);
    const read = { resultType: 'complete', contents: [], ttlMs: 0, cacheScope: 'private' };
    expect(checkResult('resources/read', '2026-07-28', read)?.success).toBe(true);
  });

  it('accepts no InputRequiredResult where input cannot be asked for', () => {
    const interim = { resultType: 'input_required', requestState: 's' };
    expect(checkResult('tools/list', '2026-07-28', interim)?.success).toBe(false);
    expect(checkResult('completion/complete', '2026-07-28', interim)?.success).toBe(false);
    // Before 2026-07-28 resultType means nothing: the result must be a complete one.
    expect(checkResult('tools/call', '2025-11-25', interim)?.success).toBe(false);
  });
});

describe('methodSchema: a method builds its own schemas, not its revision’s', () => {
  it('gives the very schema objects of schemasFor, for every method and result of every revision', () => {
    for (const revision of SUPPORTED_REVISIONS) {
      const all = schemasFor(revision);
      for (const method of methodsOf(revision)) {
        const names = [method.definition, ...(method.result ? [method.result] : [])];
        if (method.taskAugmentable) names.push('CreateTaskResult');
        if (method.inputRequired) names.push('InputRequiredResult');
        for (const name of names) {
          expect({
            revision,
            method: method.method,
            name,
            same: methodSchema(method.method, name, revision) === all[name],
          }).toEqual({
            revision,
            method: method.method,
            name,
            same: true,
          });
        }
      }
    }
  });

  it('builds the tool and handshake schemas for a tools call without building sampling’s or the revision’s whole set', () => {
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports */
      // Spied on before the registry loads, so that whatever holds the builders holds the spies.
      const sampling = require('../../lib/schema/sampling') as typeof Sampling;
      const messages = require('../../lib/schema/messages') as typeof Messages;
      const builtSampling = jest.spyOn(sampling, 'samplingSchemas');
      const builtAll = jest.spyOn(messages, 'messageSchemas');
      const fresh = require('../../lib/schema/methods') as typeof Methods;
      /* eslint-enable @typescript-eslint/no-require-imports */
      for (const method of ['initialize', 'tools/list', 'tools/call']) {
        expect(fresh.paramsSchemaFor(method, '2025-11-25')).toBeDefined();
        expect(fresh.resultSchemaFor(method, '2025-11-25')).toBeDefined();
      }
      expect(builtSampling).not.toHaveBeenCalled();
      expect(builtAll).not.toHaveBeenCalled();
      expect(fresh.paramsSchemaFor('sampling/createMessage', '2025-11-25')).toBeDefined();
      expect(builtSampling).toHaveBeenCalledWith('2025-11-25');
    });
  });

  it('is undefined for a definition the revision lacks', () => {
    expect(methodSchema('tasks/get', 'GetTaskRequest', '2025-06-18')).toBeUndefined();
    expect(methodSchema('tools/call', 'InputRequiredResult', '2025-11-25')).toBeUndefined();
    expect(methodSchema('tools/call', 'InputRequiredResult', '2026-07-28')).toBeDefined();
  });
});
