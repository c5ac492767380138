/**
 * What the example server adds when it runs as one process of a cluster (`--redis <url>`): tools
 * whose effect reaches every process, so that a call on one process shows on sessions served by
 * the others.
 */
import { z } from 'zod';
import type { McpServer, RedisCluster } from '../../lib/index';

const ADD_TOOL = 'example.add-tool';

/** Registers the cluster tools on `server`, and applies their cluster-wide events to it. */
export function clusterTools(server: McpServer, cluster: RedisCluster): void {
  const added = new Set<string>();
  // Every process registers the same tool, so lists stay identical; each tells its own sessions.
  cluster.on(ADD_TOOL, (payload) => {
    const name = String(payload);
    if (added.has(name)) return;
    added.add(name);
    server.tool({
      name,
      description: 'A tool added while the cluster runs; it answers with its own name.',
      handler: () => ({ content: [{ type: 'text', text: name }] }),
    });
  });
  server.tool({
    name: 'cluster_add_tool',
    description: 'Adds a tool named `name` on every process of the cluster (tools/list_changed everywhere).',
    inputSchema: z.object({ name: z.string().regex(/^[a-z0-9_]{1,64}$/) }),
    handler: async ({ name }) => {
      await cluster.publish(ADD_TOOL, name);
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  });
  server.tool({
    name: 'cluster_touch_resource',
    description: 'Reports `uri` as updated to its subscribers, whatever process serves them.',
    inputSchema: z.object({ uri: z.string() }),
    handler: async ({ uri }) => {
      await cluster.resourceUpdated(uri);
      return { content: [{ type: 'text', text: `touched ${uri}` }] };
    },
  });
  server.tool({
    name: 'cluster_process',
    description: 'Names the cluster process that ran this call.',
    handler: () => ({ content: [{ type: 'text', text: cluster.processId }] }),
  });
}
