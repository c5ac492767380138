import Ajv from 'ajv';
import { connect } from '../../lib/client/client';
import { createSchemaCheck, defaultSchemaCheck } from '../../lib/client/schema-checks';
import type { JsonSchemaValidatorFactory } from '../../lib/validation/json-schema-validator';
import { fakeServer } from './fake-server';

describe('createSchemaCheck', () => {
  it('compiles each schema object once', () => {
    const factory = jest.fn<ReturnType<JsonSchemaValidatorFactory>, Parameters<JsonSchemaValidatorFactory>>(
      () => () => [],
    );
    const check = createSchemaCheck(factory);
    const schema = { type: 'object' };
    check(schema, {});
    check(schema, { a: 1 });
    check({ type: 'object' }, {});
    expect(factory).toHaveBeenCalledTimes(2);
  });

  it('uses the built-in validator by default', () => {
    const check = createSchemaCheck();
    expect(check({ type: 'object', required: ['a'] }, {})).toEqual([
      { path: 'a', message: expect.stringMatching(/required/) },
    ]);
    expect(check({ type: 'object', required: ['a'] }, { a: 1 })).toEqual([]);
  });

  it('does not enforce a schema that cannot be compiled', () => {
    const check = createSchemaCheck(() => {
      throw new Error('cannot compile');
    });
    expect(check({ type: 'object' }, 'anything')).toEqual([]);
  });

  it('[tools.output-schema] takes a full validator through the jsonSchemaValidator option', async () => {
    const ajv = new Ajv({ strict: false });
    const viaAjv: JsonSchemaValidatorFactory = (schema) => {
      const validate = ajv.compile(schema);
      return (value) =>
        validate(value)
          ? []
          : (validate.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? 'invalid' }));
    };
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: {
        'tools/list': () => ({
          tools: [
            {
              name: 'mail',
              inputSchema: { type: 'object' },
              outputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email' } } },
            },
          ],
        }),
        'tools/call': () => ({ content: [], structuredContent: { to: 'not-an-address' } }),
      },
    });
    const formats = jest.fn(viaAjv);
    ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
    const client = await connect(server.clientTransport, {
      name: 'c',
      version: '1',
      protocolVersion: '2025-11-25',
      jsonSchemaValidator: formats,
    });
    await expect(client.promises.callTool('mail')).rejects.toThrow(/\/to: must match format "email"/);
    expect(formats).toHaveBeenCalledTimes(1);
    client.close();
  });
});

describe('the schema check a client is given', () => {
  const checkOf = (client: unknown) => (client as { readonly check: unknown }).check;

  it('is one for every client that names neither a validator nor a logger, and its own otherwise', async () => {
    const info = { name: 'checks', version: '1.0.0', protocolVersion: '2025-11-25' } as const;
    const plain = await Promise.all([
      connect(fakeServer().clientTransport, info),
      connect(fakeServer().clientTransport, info),
    ]);
    const withValidator = await connect(fakeServer().clientTransport, { ...info, jsonSchemaValidator: () => () => [] });
    const logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
    const withLogger = await connect(fakeServer().clientTransport, { ...info, logger });
    expect(checkOf(plain[0])).toBe(defaultSchemaCheck());
    expect(checkOf(plain[1])).toBe(checkOf(plain[0]));
    expect(checkOf(withValidator)).not.toBe(defaultSchemaCheck());
    expect(checkOf(withLogger)).not.toBe(defaultSchemaCheck());
    for (const client of [...plain, withValidator, withLogger]) client.close();
  });
});
