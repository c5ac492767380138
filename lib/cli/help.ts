/**
 * The `rxmcp` command's help: what each command does, its options, examples, the servers file's
 * format and the environment variables it reads. Printed on stdout by `--help`, `-h` and
 * `rxmcp help <command>`.
 */

/** What `rxmcp help` can explain. */
export type HelpTopic = 'rxmcp' | 'proxy' | 'connect' | 'bench' | 'completion';

const CONFIG_FORMAT = `Servers file (the "mcpServers" format desktop clients use):
  {
    "mcpServers": {
      "files":  { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                  "env": { "LOG_LEVEL": "warn" }, "cwd": "/tmp" },
      "search": { "url": "https://search.example.com/mcp",
                  "headers": { "Authorization": "Bearer \${SEARCH_TOKEN}" } },
      "old":    { "url": "http://127.0.0.1:8080/sse", "type": "sse" }
    }
  }
  - "command", "args", "env", "cwd": a server started as a process, spoken to over stdio. It gets
    PATH, HOME, USER, LOGNAME, SHELL and TERM from this environment, plus its "env".
  - "url", "headers", "type": a remote server; "type" is "http" (Streamable HTTP, the default),
    "streamable-http", or "sse" (the 2024-11-05 HTTP+SSE transport).
  - "disabled": true skips an entry; autoApprove, alwaysAllow, timeout and description are ignored;
    any other key is an error.
  - Per server: "namespace" (default: the name, "_" written "-"; "": none), "tools" and "prompts"
    ({ "include", "exclude": names or globs, "rename": { "old": "new" } }), "tools.arguments"
    ({ "<tool or *>": { "<arg>": { "hidden": v } or { "default": v } } }), "resources" (include,
    exclude by URI), "sharing" ("shared" or "perSession"), "reconnect" (false or { initialDelayMs,
    maxDelayMs, factor, jitter, maxAttempts }), "startTimeoutMs".
  - Beside the list: "separator" (default "_"), "collisions" ("prefix", "first", "error"),
    "requestTimeoutMs", "reconnect", "instructions". The list may be "servers" instead.
  - On a "url" server, "oauth": how the gateway signs in when it answers 401: { "grant":
    "authorization_code" (a printed URL, the default) or "client_credentials", "clientId",
    "clientSecret", "scopes", "tokenFile" (default ~/.local/state/rxmcp/tokens.json),
    "callbackPort" }. Tokens are kept in "tokenFile" and reused after a restart.
  - Serving (--http): "auth" ({ "apiKey": { "env": "VAR" } }, { "jwt": { "resource", "issuer",
    "jwksUri" } } or { "introspection": { ... } }), "policies" ({ "rateLimits": [{ "name",
    "limit", "windowMs", "methods" }], "concurrency", "tools": { "<tool>": { "scopes", "roles" } },
    "redis": "redis://..." }), "metrics" ({ "tokenEnv": "VAR" }). They change on restart only.
  - A name is letters, digits, ".", "-" and "_", starting with a letter: its namespace prefixes
    the server's tools and prompts (files_read_file) and resource URIs (files+file:///...).
  - \${VAR} in any of these strings is read from the environment; \${VAR:-default} has a default.`;

const EXIT_CODES = `Exit codes:
  0  stopped as asked (Ctrl-C, SIGTERM, the client closed stdin)
  1  nothing could be served, or the server went away
  2  a bad command line or servers file`;

/** The help text of each topic, without a final newline. */
export const USAGE: Readonly<Record<HelpTopic, string>> = {
  rxmcp: `Usage: rxmcp <command> [options]

Serves many MCP servers as one, brings a remote MCP server to clients that only speak stdio, and
measures MCP servers side by side.

Commands:
  proxy        serve the MCP servers of a config file as one server (stdio or Streamable HTTP)
  connect      bridge stdio to a remote Streamable HTTP MCP server
  bench        measure MCP servers side by side: latency, throughput, cost
  completion   print a shell completion script (bash or zsh)
  help [cmd]   show this help, or a command's

Options:
  -h, --help       show help (also: rxmcp <command> --help)
  -v, --version    show the version

Examples:
  rxmcp proxy --config servers.json              serve the servers of servers.json on stdio
  rxmcp proxy --config servers.json --http 3000  the same at http://127.0.0.1:3000/mcp
  rxmcp connect https://mcp.example.com/mcp      reach a remote server from a stdio client
  rxmcp bench "node server.js" -t echo -c 8      measure a stdio server, 8 calls in flight
  source <(rxmcp completion bash)                complete commands and options in bash

Servers file (rxmcp proxy --config; rxmcp proxy --help has the details):
  { "mcpServers": { "<name>": { "command": "...", "args": [...], "env": {...} },
                    "<name>": { "url": "https://.../mcp", "headers": {...} } } }

Environment:
  RXMCP_VERBOSE=1   also show connections opening and closing, on stderr
  \${VAR}            any variable the servers file names

${EXIT_CODES}`,

  proxy: `Usage: rxmcp proxy --config <servers.json> [--http <port> [--host <address>] | --stdio] [--watch]
                   [--log-level <level>]
       rxmcp proxy --print-schema

Starts every server of the file's "mcpServers" and serves them as one MCP server whose tools and
prompts are named <server>_<name>. A server that fails to start is left out; one that goes away
is started again. Progress lines go to stderr: under --stdio, stdout carries protocol messages.

Options:
  -c, --config <file>   the servers file (required)
  --http <port>         serve Streamable HTTP at http://127.0.0.1:<port>/mcp (0: a free port)
  --host <address>      the address --http listens on (default 127.0.0.1; another one is
                        reachable from other machines: protect it)
  --stdio               serve on stdin and stdout (the default)
  --watch               read the servers file again when it changes (SIGHUP always does): new
                        servers join, removed ones leave, changed ones restart; clients stay
                        connected. A file that is not valid is refused and the old one kept.
  --print-schema        print the servers file's JSON Schema (draft 2020-12) and exit
  --log-level <level>   log on stderr from this level: trace, debug, info (a line per call), warn,
                        error, silent
  --log-format <f>      the log lines: pretty (the default) or json (one JSON object a line)
  -h, --help            show this help
  -v, --version         show the version

Examples:
  rxmcp proxy --config servers.json
  rxmcp proxy -c servers.json --http 0
  rxmcp proxy -c servers.json --http 3000 --log-level info --log-format json
    with --http, GET /healthz, /readyz (503 while an upstream is down) and /metrics (Prometheus)
  In a desktop client's config:
    { "mcpServers": { "all": { "command": "rxmcp", "args": ["proxy", "--config", "/home/me/servers.json"] } } }

${CONFIG_FORMAT}

Environment:
  RXMCP_VERBOSE=1   also show connections opening and closing, on stderr
  \${VAR}            any variable the servers file names (one that is not set and has no default
                    is an error)

${EXIT_CODES}`,

  connect: `Usage: rxmcp connect <url> [--header "Name: value"]... [--callback-port <port>]

Bridges an MCP client on stdin and stdout to a Streamable HTTP server. When the server asks for
authorization, prints the sign-in URL to stderr and takes the redirect on a loopback port; tokens
are kept in memory only.

Options:
  -H, --header "Name: value"   a header for every request (repeatable)
  --callback-port <port>       the OAuth redirect's loopback port (default: a free one)
  -h, --help                   show this help
  -v, --version                show the version

Examples:
  rxmcp connect https://mcp.example.com/mcp
  rxmcp connect https://mcp.example.com/mcp -H "Authorization: Bearer $TOKEN" -H "X-Team: blue"
  In a desktop client's config:
    { "mcpServers": { "remote": { "command": "rxmcp", "args": ["connect", "https://mcp.example.com/mcp"] } } }

Environment:
  RXMCP_VERBOSE=1   also show connections opening and closing, on stderr

${EXIT_CODES}`,

  bench: `Usage: rxmcp bench <target>... [--tool <name> [--args <json>] | --mix <file>]
                   [--concurrency <n> | --rate <calls/s> | --sweep <n,n,...>] [--sessions <n> | --churn]
                   [--duration <time>] [--reps <n>] [--json <file>] [--html <file>] [--compare <file>]

Measures one or more MCP servers under the same load, side by side. Each repetition opens each
target afresh (a command is a fresh process), asks what it serves, times its first calls apart
(the cold regime), warms it up until its rate settles, then measures it; the targets take turns,
in an order that alternates between repetitions. Each figure is the median [min - max] of the
repetitions; a target whose repetitions spread too wide, or that never settled, is flagged "not
for quoting". The load average at the start and the end is printed beside the table.

Targets ([name=] gives a name; the default is the target as written):
  "node server.js --flag"     a command: spawned and spoken to over stdio (its CPU and memory are read)
  http://127.0.0.1:3000/mcp   a Streamable HTTP server (https too)
  sse+http://host/sse         a 2024-11-05 HTTP+SSE server
  ws://127.0.0.1:3000/mcp     a WebSocket server (wss too)

Options:
  -t, --tool <name>           call this tool (default: ping)
  --args <json>               the tool's arguments, a JSON object
  --mix <file>                a weights file: [{ "weight": 3, "method": "tools/call", "name": "echo",
                              "arguments": {...} }, { "weight": 1, "method": "resources/read", "uri":
                              "..." }, { "method": "tools/list" }, { "method": "prompts/get", ... }]
  -c, --concurrency <n>       calls in flight: a closed loop (the default, 1)
  -r, --rate <calls/s>        calls started per second whatever the answers: an open loop, whose
                              latency counts from when a call was due (queueing shows in p99)
  --sweep <n,n,...>           a closed loop at each concurrency in turn; reports where the
                              throughput stops growing (the knee)
  --sessions <n>              connections per target, calls going to each in turn; with --pid, the
                              server's memory growth per session is reported
  --pid <pid>                 the local process of the URL targets' server: its CPU time per call,
                              memory (and per session) are read, as they are for a command
  --churn                     each call opens a connection, makes the call and closes it
  -d, --duration <time>       the steady phase of each repetition (default 5s; 500ms, 1m)
  --reps <n>                  repetitions per target (default 3; fewer are not for quoting)
  --cold <n>                  calls of each fresh connection's cold phase (default 100)
  --warmup-max <time>         the longest a warm-up lasts before it is reported unsettled (15s)
  --timeout <time>            a call not answered in this long fails as "timeout" (default 10s)
  --json <file>               write the report as JSON (- : stdout, the table then goes to stderr)
  --html <file>               write a self-contained HTML report: latency over time, percentiles
  --compare <file>            a JSON report to compare with: exit 1 where a figure is worse than
                              the baseline's beyond its spread
  -H, --header "Name: value"  a header for every HTTP request (repeatable)
  --callback-port <port>      the OAuth redirect's loopback port, for a server that asks to sign in
  -h, --help                  show this help
  -v, --version               show the version

Examples:
  rxmcp bench "node dist/server.js" -t echo --args '{"text":"hi"}' -c 8
  rxmcp bench a="node a.js" b="node b.js" -t add --args '{"a":1,"b":2}' --html report.html
  rxmcp bench http://127.0.0.1:3000/mcp --rate 500 -d 10s
  rxmcp bench "node server.js" -t echo --json baseline.json         once, on the main branch
  rxmcp bench "node server.js" -t echo --compare baseline.json      in CI: exit 1 on a regression

Environment:
  RXMCP_VERBOSE=1   also show connections opening and closing, on stderr

Exit codes:
  0  measured (and, with --compare, no figure worse than the baseline)
  1  a target could not be reached or does not serve the workload, or a figure is worse
  2  a bad command line, --args or --mix file`,

  completion: `Usage: rxmcp completion <bash | zsh>

Prints a script that completes rxmcp's commands and options (and file names after --config) in
that shell.

Options:
  -h, --help      show this help
  -v, --version   show the version

Examples:
  source <(rxmcp completion bash)                       in this bash session
  rxmcp completion bash > ~/.local/share/bash-completion/completions/rxmcp
  source <(rxmcp completion zsh)                        in this zsh session (after compinit)
  rxmcp completion zsh > "\${fpath[1]}/_rxmcp"            for every zsh session

Environment: none.`,
};
