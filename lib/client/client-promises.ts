import { lastValueFrom } from '../rx/rxjs';
import type { McpClient, McpClientPromises } from './client-api';
import { eventsOf } from './async-events';
import { resultOfCall } from './tool-call';
import type { ToolCallEvent } from './tool-call';

/** The Promise form of a client's requests: each resolves with the last value its Observable emits. */
export function promisesOf(client: McpClient): McpClientPromises {
  return {
    callTool: (name, args, o) =>
      resultOfCall(client.callTool(name, args, { progress: false, partialResults: false, ...o })),
    streamTool: (name, args, o) =>
      eventsOf(client.callTool(name, args, o), (event: ToolCallEvent) => event.type === 'partial'),
    listTools: (o) => lastValueFrom(client.listTools(o)),
    listResources: (o) => lastValueFrom(client.listResources(o)),
    listResourceTemplates: (o) => lastValueFrom(client.listResourceTemplates(o)),
    listPrompts: (o) => lastValueFrom(client.listPrompts(o)),
    readResource: (uri, o) => lastValueFrom(client.readResource(uri, o)),
    getPrompt: (name, args, o) => lastValueFrom(client.getPrompt(name, args, o)),
    complete: (params, o) => lastValueFrom(client.complete(params, o)),
    setLoggingLevel: (level, o) => lastValueFrom(client.setLoggingLevel(level, o)),
    ping: (o) => lastValueFrom(client.ping(o)),
  };
}
