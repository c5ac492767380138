/**
 * The example server's tools and prompt for the modern revision (2026-07-28): handlers that ask
 * their client for input (which becomes a multi round-trip request under 2026-07-28 and ordinary
 * requests to the client in a session), the diagnostics the conformance suite calls, and a tool
 * whose argument is mirrored into an `Mcp-Param-*` header. Every handler works under every revision.
 */
import { firstValueFrom, forkJoin, timer, map } from 'rxjs';
import type { McpServer, ServerContext, ToolResult } from '../../lib/index';

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });

const NAME_FORM = {
  message: 'What is your name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
};
const CONFIRM_FORM = {
  message: 'Please confirm',
  requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] },
};

const askName = (context: ServerContext) => firstValueFrom(context.elicit(NAME_FORM, { inputKey: 'user_name' }));
const sampleText = (answer: { content: unknown }): string => {
  const block = (Array.isArray(answer.content) ? answer.content[0] : answer.content) as
    { type?: string; text?: string } | undefined;
  return block?.type === 'text' ? String(block.text) : JSON.stringify(block);
};

/** Tools that ask the client for input: one code path for every revision (see `ServerContext.elicit`). */
function inputTools(server: McpServer): void {
  server.tool({
    name: 'test_input_required_result_elicitation',
    description: "Asks the user's name (elicitation), then greets them.",
    handler: async (_args, context) => {
      const answer = await askName(context);
      return text(`Hello, ${String(answer.content?.name ?? 'stranger')}!`);
    },
  });
  server.tool({
    name: 'test_input_required_result_sampling',
    description: "Asks the client's model a question (sampling) and returns its answer.",
    handler: async (_args, context) => {
      const answer = await firstValueFrom(
        context.sample(
          {
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          },
          { inputKey: 'capital_question' },
        ),
      );
      return text(`The model says: ${sampleText(answer)}`);
    },
  });
  server.tool({
    name: 'test_input_required_result_list_roots',
    description: 'Asks the client for its roots and lists them.',
    handler: async (_args, context) => {
      const { roots } = await firstValueFrom(context.listRoots({ inputKey: 'client_roots' }));
      return text(`Roots: ${roots.map((root) => root.uri).join(', ') || '(none)'}`);
    },
  });
  for (const name of ['test_input_required_result_request_state', 'test_input_required_result_tampered_state']) {
    server.tool({
      name,
      description: 'Asks the user to confirm; the answer comes back with the request state.',
      handler: async (_args, context) => {
        const answer = await firstValueFrom(context.elicit(CONFIRM_FORM, { inputKey: 'confirm' }));
        return text(answer.content?.ok === true ? 'state-ok: confirmed' : 'state-ok: not confirmed');
      },
    });
  }
  server.tool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for a name, a greeting from the model and the roots at once.',
    handler: (_args, context) =>
      forkJoin({
        name: context.elicit(NAME_FORM, { inputKey: 'user_name' }),
        greeting: context.sample(
          { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
          { inputKey: 'greeting' },
        ),
        roots: context.listRoots({ inputKey: 'client_roots' }),
      }).pipe(
        map(({ name, greeting, roots }) =>
          text(`${sampleText(greeting)} ${String(name.content?.name)} (${roots.roots.length} roots)`),
        ),
      ),
  });
  server.tool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks for a name, then for a favourite colour: two rounds.',
    handler: async (_args, context) => {
      const name = await firstValueFrom(context.elicit(NAME_FORM, { inputKey: 'step1' }));
      const colour = await firstValueFrom(
        context.elicit(
          {
            message: 'Step 2: What is your favorite color?',
            requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
          },
          { inputKey: 'step2' },
        ),
      );
      return text(`${String(name.content?.name)} likes ${String(colour.content?.color)}`);
    },
  });
  server.tool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks the client only for what it declared it can give (sampling, elicitation, roots).',
    handler: async (_args, context) => {
      const declared = context.clientCapabilities ?? {};
      const asks: Promise<unknown>[] = [];
      if (declared.sampling) {
        asks.push(
          firstValueFrom(
            context.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 }),
          ),
        );
      }
      if (declared.elicitation) asks.push(askName(context));
      if (declared.roots) asks.push(firstValueFrom(context.listRoots()));
      await Promise.all(asks);
      return text(`Asked for ${asks.length} input(s)`);
    },
  });
  server.prompt({
    name: 'test_input_required_result_prompt',
    description: 'A prompt that asks the user what context to use first.',
    handler: async (_args, context) => {
      const answer = await firstValueFrom(
        context.elicit(
          {
            message: 'What context should the prompt use?',
            requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          },
          { inputKey: 'user_context' },
        ),
      );
      return {
        messages: [
          { role: 'user', content: { type: 'text', text: `Use this context: ${String(answer.content?.context)}` } },
        ],
      };
    },
  });
}

/** The diagnostics the conformance suite's modern scenarios call. */
function diagnosticTools(server: McpServer): void {
  server.tool({
    name: 'test_missing_capability',
    description: 'Needs sampling: a client that did not declare it gets -32021 (2026-07-28) or a tool error.',
    handler: async (_args, context) => {
      await firstValueFrom(
        context.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'ping' } }], maxTokens: 5 }),
      );
      return text('sampled');
    },
  });
  server.tool({
    name: 'test_streaming_elicitation',
    description: 'Streams progress, then answers: no request to the client travels on the response stream.',
    handler: (_args, context) => {
      context.progress(1, 2, 'working');
      return timer(20).pipe(map(() => text('streamed')));
    },
  });
  server.tool({
    name: 'test_logging_tool',
    description: 'Logs three messages; they reach only a request that asked for a log level.',
    handler: (_args, context) => {
      for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed'])
        context.log('info', message);
      return text('logged');
    },
  });
  server.tool({
    name: 'test_trigger_tool_change',
    description: 'Changes the tool list (adds and removes a tool), so listeners hear of it.',
    handler: () => {
      server.tool({ name: 'test_transient_tool', description: 'Here for a moment.', handler: () => text('') }).remove();
      return text('tool list changed');
    },
  });
  server.tool({
    name: 'test_trigger_prompt_change',
    description: 'Changes the prompt list (adds and removes a prompt), so listeners hear of it.',
    handler: () => {
      server
        .prompt({ name: 'test_transient_prompt', description: 'Here for a moment.', handler: () => ({ messages: [] }) })
        .remove();
      return text('prompt list changed');
    },
  });
  server.tool({
    name: 'test_x_mcp_header',
    description: 'Its region argument travels in the Mcp-Param-Region header too (2026-07-28 over HTTP).',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' },
        level: { type: 'integer', description: 'How hard to try' },
      },
    },
    handler: (args) => text(`Region: ${String((args as { region?: unknown }).region)}`),
  });
}

/** Registers the modern-revision tools and prompt on the example server. */
export function modernTools(server: McpServer): void {
  inputTools(server);
  diagnosticTools(server);
}
