import { isKnownMethod, methodDefinition, methodsOf, paramsSchemaFor, resultSchemaFor } from '../../lib/schema/methods';
import { SUPPORTED_REVISIONS } from '../../lib/schema/revisions';

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

  it('marks ping, progress and cancellation as going both ways', () => {
    for (const method of ['ping', 'notifications/progress', 'notifications/cancelled']) {
      for (const revision of SUPPORTED_REVISIONS) expect(methodDefinition(method, revision)?.direction).toBe('both');
    }
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

  it('names the capability a sender needs for its list_changed notifications', () => {
    expect(methodDefinition('notifications/tools/list_changed', '2025-11-25')?.senderCapability).toBe(
      'tools.listChanged',
    );
    expect(methodDefinition('notifications/message', '2025-11-25')?.senderCapability).toBe('logging');
  });
});

describe('methodsOf', () => {
  it('grows with each revision', () => {
    const counts = SUPPORTED_REVISIONS.map((revision) => methodsOf(revision).length);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(methodsOf('2025-11-25').map((m) => m.method)).toContain('notifications/elicitation/complete');
  });

  it('knows every method of any supported revision', () => {
    expect(isKnownMethod('elicitation/create')).toBe(true);
    expect(isKnownMethod('server/discover')).toBe(false);
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
  });
});
