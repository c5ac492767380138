/**
 * What `rxmcp bench` sends: one operation (a tool with its arguments, a list, a read, a prompt, a
 * ping) or a weighted mix of them, and the check, before any load, that the target serves it.
 */
import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
import { firstValueFrom, timer } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { McpClient } from '../client/client';
import type { BenchCall } from './load';

/** One kind of request. */
export type BenchOperation =
  | { readonly kind: 'ping' }
  | { readonly kind: 'tool'; readonly name: string; readonly arguments?: Readonly<Record<string, unknown>> }
  | { readonly kind: 'list'; readonly what: 'tools' | 'resources' | 'prompts' }
  | { readonly kind: 'read'; readonly uri: string }
  | { readonly kind: 'prompt'; readonly name: string; readonly arguments?: Readonly<Record<string, string>> };

/** One operation, or a mix: each call picks an entry with a probability proportional to its weight. */
export type BenchWorkload =
  | BenchOperation
  | {
      readonly kind: 'mix';
      readonly entries: ReadonlyArray<{ readonly weight: number; readonly operation: BenchOperation }>;
    };

/** What a target serves, as it answered before the load. */
export interface Served {
  readonly tools: readonly string[];
  readonly resources: readonly string[];
  readonly prompts: readonly string[];
}

/** A target does not serve what the workload asks for; the message names what it serves instead. */
export class BenchWorkloadError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.BenchWorkload;
  override readonly name = 'BenchWorkloadError';
}

/** How a workload reads in a report: `tools/call echo`, `mix of 3`. */
export function describeWorkload(workload: BenchWorkload): string {
  switch (workload.kind) {
    case 'ping':
      return 'ping';
    case 'tool':
      return `tools/call ${workload.name}`;
    case 'list':
      return `${workload.what}/list`;
    case 'read':
      return `resources/read ${workload.uri}`;
    case 'prompt':
      return `prompts/get ${workload.name}`;
    case 'mix':
      return `mix of ${workload.entries.map((e) => `${describeWorkload(e.operation)} ×${e.weight}`).join(', ')}`;
  }
}

/** Asks the client's server what it serves (the lists its capabilities offer). */
export async function askServed(client: McpClient): Promise<Served> {
  const caps = client.serverCapabilities;
  const [tools, resources, prompts] = await Promise.all([
    caps.tools ? client.promises.listTools() : [],
    caps.resources ? client.promises.listResources() : [],
    caps.prompts ? client.promises.listPrompts() : [],
  ]);
  return {
    tools: tools.map((t) => t.name),
    resources: resources.map((r) => r.uri),
    prompts: prompts.map((p) => p.name),
  };
}

const operations = (workload: BenchWorkload): readonly BenchOperation[] =>
  workload.kind === 'mix' ? workload.entries.map((e) => e.operation) : [workload];

/** The tools the workload calls that `served` lacks. */
function missingTools(workload: BenchWorkload, served: Served): string[] {
  return operations(workload).flatMap((op) => (op.kind === 'tool' && !served.tools.includes(op.name) ? [op.name] : []));
}

/**
 * What the client's server serves, once it serves the workload's tools: a server that lacks one is
 * asked again every 250 ms for up to `waitMs` (a gateway serves before all its upstreams have
 * joined). Then throws {@link BenchWorkloadError} if it still lacks a tool or prompt the workload calls.
 */
export async function awaitServed(
  target: string,
  client: McpClient,
  workload: BenchWorkload,
  waitMs = 3000,
): Promise<Served> {
  let served = await askServed(client);
  for (let waited = 0; missingTools(workload, served).length > 0 && waited < waitMs; waited += 250) {
    await firstValueFrom(timer(250));
    served = await askServed(client);
  }
  checkServed(target, workload, served);
  return served;
}

/** Throws {@link BenchWorkloadError} when `served` lacks a tool or prompt the workload calls. */
export function checkServed(target: string, workload: BenchWorkload, served: Served): void {
  for (const operation of operations(workload)) {
    if (operation.kind === 'tool' && !served.tools.includes(operation.name)) {
      throw new BenchWorkloadError(
        `${target} serves no tool "${operation.name}" (it serves: ${served.tools.join(', ') || 'no tools'})`,
      );
    }
    if (operation.kind === 'prompt' && !served.prompts.includes(operation.name)) {
      throw new BenchWorkloadError(
        `${target} serves no prompt "${operation.name}" (it serves: ${served.prompts.join(', ') || 'no prompts'})`,
      );
    }
  }
}

function callOf(client: McpClient, operation: BenchOperation): Observable<unknown> {
  switch (operation.kind) {
    case 'ping':
      return client.ping();
    case 'tool':
      return client.callTool(operation.name, { ...operation.arguments });
    case 'list':
      return operation.what === 'tools'
        ? client.listTools()
        : operation.what === 'resources'
          ? client.listResources()
          : client.listPrompts();
    case 'read':
      return client.readResource(operation.uri);
    case 'prompt':
      return client.getPrompt(operation.name, { ...operation.arguments });
  }
}

/**
 * The call of a workload on `client`. A mix picks each call's operation with a seeded generator, so
 * that every target (and every run) gets the same sequence.
 */
export function workloadCall(client: McpClient, workload: BenchWorkload, seed = 1): BenchCall {
  if (workload.kind !== 'mix') return () => callOf(client, workload);
  const total = workload.entries.reduce((sum, e) => sum + e.weight, 0);
  let state = seed;
  const random = () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
  return () => {
    let pick = random() * total;
    const entry = workload.entries.find((e) => (pick -= e.weight) < 0) ?? workload.entries.at(-1)!;
    return callOf(client, entry.operation);
  };
}
