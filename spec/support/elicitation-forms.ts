import type { ElicitRequestFormParams } from '../../lib/schema/elicitation';

/**
 * The form of the conformance scenario elicitation-sep1034-client-defaults: no `mode`, nothing
 * required, a default on every field.
 */
export const SEP1034_DEFAULTS_FORM: ElicitRequestFormParams = {
  message: 'Defaults, please',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      score: { type: 'number', default: 95.5 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', default: true },
    },
    required: [],
  },
};
