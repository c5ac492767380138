import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasDefinition, schemasFor } from '../../lib/schema/definitions';
import { methodDefinition, methodsOf, type MethodDirection } from '../../lib/schema/methods';
import { SUPPORTED_REVISIONS, type Revision } from '../../lib/schema/revisions';

type Schema = { [key: string]: unknown };

function definitionsOf(revision: Revision): Record<string, Schema> {
  const root = JSON.parse(readFileSync(join(__dirname, '../fixtures/schema', `${revision}.json`), 'utf8')) as Schema;
  return (root.definitions ?? root.$defs) as Record<string, Schema>;
}

/**
 * The `method` constants of the definitions an official union (e.g. `ClientRequest`) lists. A
 * union of one member may be written as that member (2026-07-28's `ClientNotification`); a
 * revision without the union (2026-07-28 has no `ServerRequest`) has no such methods.
 */
function methodsInUnion(defs: Record<string, Schema>, union: string): string[] {
  const schema = defs[union];
  if (!schema) return [];
  const members = (schema.anyOf as Schema[] | undefined) ?? [schema];
  return members.map((member) => {
    const resolved = member.$ref === undefined ? member : defs[String(member.$ref).split('/').pop()!]!;
    const method = (resolved.properties as Record<string, Schema>).method!;
    return String(method.const);
  });
}

describe.each(SUPPORTED_REVISIONS)('schemasFor(%s)', (revision) => {
  const defs = definitionsOf(revision);

  it('has a schema for every definition of the official schema, and nothing else', () => {
    expect(Object.keys(schemasFor(revision)).sort()).toEqual(Object.keys(defs).sort());
  });

  it('returns the same record on every call', () => {
    expect(schemasFor(revision)).toBe(schemasFor(revision));
  });

  it('agrees with hasDefinition', () => {
    for (const name of Object.keys(defs)) expect(hasDefinition(name, revision)).toBe(true);
  });
});

describe.each(SUPPORTED_REVISIONS)('the method registry of %s', (revision) => {
  const defs = definitionsOf(revision);
  const clientRequests = methodsInUnion(defs, 'ClientRequest');
  const serverRequests = methodsInUnion(defs, 'ServerRequest');
  const clientNotifications = methodsInUnion(defs, 'ClientNotification');
  const serverNotifications = methodsInUnion(defs, 'ServerNotification');

  function direction(fromClient: boolean, fromServer: boolean): MethodDirection {
    return fromClient && fromServer ? 'both' : fromClient ? 'client-to-server' : 'server-to-client';
  }

  it('has every request of the official unions, with the direction they imply', () => {
    for (const method of new Set([...clientRequests, ...serverRequests])) {
      expect(methodDefinition(method, revision)).toMatchObject({
        method,
        kind: 'request',
        direction: direction(clientRequests.includes(method), serverRequests.includes(method)),
      });
    }
  });

  it('has every notification of the official unions, with the direction they imply', () => {
    for (const method of new Set([...clientNotifications, ...serverNotifications])) {
      expect(methodDefinition(method, revision)).toMatchObject({
        method,
        kind: 'notification',
        direction: direction(clientNotifications.includes(method), serverNotifications.includes(method)),
      });
    }
  });

  it('has no method the official unions lack', () => {
    const official = new Set([...clientRequests, ...serverRequests, ...clientNotifications, ...serverNotifications]);
    expect(methodsOf(revision).filter((m) => !official.has(m.method))).toEqual([]);
  });

  it('reads the requests a client sends from the official union', () => {
    expect(clientRequests).toEqual(expect.arrayContaining(['tools/call', 'resources/read', 'prompts/get']));
  });

  it('names definitions that exist in the revision and carry the method', () => {
    for (const m of methodsOf(revision)) {
      const schema = defs[m.definition]!;
      expect((schema.properties as Record<string, Schema>).method!.const).toBe(m.method);
      if (m.result !== undefined) expect(defs[m.result]).toBeDefined();
    }
  });
});
