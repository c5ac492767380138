/**
 * `rxmcp bench <target>... [options]`: measures MCP servers side by side with the engine of
 * `rxmcp/bench`. Targets are reached as `rxmcp proxy` reaches its upstreams (a command over stdio,
 * a Streamable HTTP or HTTP+SSE URL, with headers and OAuth sign-in), through the same code. The
 * table goes to stdout, a live progress line to stderr; `--json`, `--html` and `--compare` as asked.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { compareReports } from '../bench/compare';
import { runBench } from '../bench/engine';
import type { BenchConnection, BenchEvent, BenchLoad, BenchOptions, BenchTarget } from '../bench/engine';
import { renderHtml } from '../bench/html';
import { runSweep } from '../bench/sweep';
import { transportTarget } from '../bench/transport-target';
import { createWebSocketClientTransport } from '../transport/websocket/websocket-transport';
import { parseMix } from '../bench/mix';
import type { BenchReport } from '../bench/report';
import { formatNumber, formatTable } from '../bench/table';
import { BenchWorkloadError } from '../bench/workload';
import type { BenchWorkload } from '../bench/workload';
import type { CliCommand } from './args';
import { parseHeader, parsePort } from './args';
import type { Upstream } from './config';
import { EXIT, UsageError } from './errors';
import { verbose } from './io';
import type { CliIo } from './io';
import { createCliAuth } from './oauth';
import type { CliAuth } from './oauth';
import { causeOf, createProgress, progressLogger } from './progress';
import type { Progress } from './progress';
import { closeUpstreams, describeTransport, startUpstream } from './upstreams';
import { packageVersion } from './version';

type BenchCommand = Extract<CliCommand, { kind: 'bench' }>;

/** How long an interrupted run waits for its connections (and server processes) to close. */
const CLOSE_WAIT_MS = 6000;

const usage = (message: string) => new UsageError(`rxmcp bench: ${message}`, 'bench');

/** `5s`, `500ms`, `1m`, or a bare number of seconds, in ms. */
export function parseDuration(option: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) throw usage(`${option} wants a time such as 5s, 500ms or 1m, not "${text}"`);
  const value = Number(match[1]);
  return match[2] === 'ms' ? value : match[2] === 'm' ? value * 60_000 : value * 1000;
}

/** A whole number from `least` up. */
function parseCount(option: string, text: string, least = 1): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < least)
    throw usage(`${option} wants a whole number from ${least}, not "${text}"`);
  return value;
}

/** A command line split into words: spaces separate, single and double quotes group, \ escapes. */
export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i]!;
      else word += c;
    } else if (c === "'" || c === '"') [quote, word] = [c, word ?? ''];
    else if (c === '\\' && i + 1 < text.length) word = (word ?? '') + text[++i]!;
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (quote) throw usage(`a quote is not closed in "${text}"`);
  if (word !== undefined) words.push(word);
  return words;
}

/** A WebSocket target, which `rxmcp proxy` has no upstream kind for. */
export interface WebSocketTargetSpec {
  readonly kind: 'ws';
  readonly name: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A target as written (`[name=]<command line or URL>`): the upstream `rxmcp proxy` would start
 * for it, or a WebSocket (`ws://`, `wss://`) target.
 */
export function targetUpstream(
  written: string,
  headers: Readonly<Record<string, string>>,
): Upstream | WebSocketTargetSpec {
  const named = /^([A-Za-z][\w.-]*)=(.+)$/s.exec(written);
  const [name, spec] = named ? [named[1]!, named[2]!] : [written, written];
  if (/^wss?:\/\//.test(spec)) {
    try {
      return { kind: 'ws', name, url: new URL(spec), headers };
    } catch {
      throw usage(`"${spec}" is not a URL`);
    }
  }
  const sse = spec.startsWith('sse+');
  if (/^(sse\+)?https?:\/\//.test(spec) || spec.startsWith('http+unix://')) {
    let url: URL;
    try {
      url = new URL(sse ? spec.slice(4) : spec);
    } catch {
      throw usage(`"${spec}" is not a URL`);
    }
    return { kind: sse ? 'sse' : 'http', name, url, headers };
  }
  const [command, ...args] = splitCommandLine(spec);
  if (command === undefined) throw usage(`the target "${written}" is empty`);
  return { kind: 'stdio', name, command, args, env: {}, cwd: undefined };
}

/** The engine's options from the command line (the weights file already read, when there is one). */
export function benchOptions(command: BenchCommand, mixText?: string): Omit<BenchOptions, 'targets'> {
  const one = (name: string) => {
    const values = command.options[name];
    if (values && values.length > 1) throw usage(`--${name} is given more than once`);
    return values?.[0];
  };
  const tool = one('tool');
  const args = one('args');
  const mix = one('mix');
  if (mix !== undefined && tool !== undefined) throw usage('--tool and --mix are exclusive: pick one');
  if (args !== undefined && tool === undefined)
    throw usage('--args are the arguments of --tool: give --tool <name> too');
  let workload: BenchWorkload = { kind: 'ping' };
  if (tool !== undefined) {
    let parsed: unknown = {};
    try {
      parsed = args === undefined ? {} : JSON.parse(args);
    } catch (error) {
      throw usage(`--args is not JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw usage('--args wants a JSON object');
    workload = { kind: 'tool', name: tool, arguments: parsed as Record<string, unknown> };
  } else if (mix !== undefined) {
    try {
      workload = parseMix(mixText ?? '', mix);
    } catch (error) {
      if (error instanceof BenchWorkloadError) throw usage(error.message);
      throw error;
    }
  }
  const concurrency = one('concurrency');
  const rate = one('rate');
  if (concurrency !== undefined && rate !== undefined)
    throw usage('--concurrency (closed loop) and --rate (open loop) are exclusive: pick one');
  if (one('sweep') !== undefined && (concurrency !== undefined || rate !== undefined))
    throw usage('--sweep sets the concurrencies itself: leave out --concurrency and --rate');
  const rateValue = rate === undefined ? NaN : Number(rate);
  if (rate !== undefined && !(rateValue > 0)) throw usage(`--rate wants calls per second, not "${rate}"`);
  const load: BenchLoad =
    rate !== undefined
      ? { kind: 'open', ratePerSecond: rateValue }
      : { kind: 'closed', concurrency: concurrency === undefined ? 1 : parseCount('--concurrency', concurrency) };
  const number = (name: string, least: number) => {
    const text = one(name);
    return text === undefined ? undefined : parseCount(`--${name}`, text, least);
  };
  const time = (name: string) => {
    const text = one(name);
    return text === undefined ? undefined : parseDuration(`--${name}`, text);
  };
  const sessions = number('sessions', 1);
  if (sessions !== undefined && command.options.churn) throw usage('--sessions and --churn are exclusive: pick one');
  const warmupMaxMs = time('warmup-max');
  const defined = <T extends object>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return {
    workload,
    load,
    ...defined({
      reps: number('reps', 1),
      coldCalls: number('cold', 0),
      durationMs: time('duration'),
      timeoutMs: time('timeout'),
      sessions,
      churn: command.options.churn ? true : undefined,
      warmUp: warmupMaxMs === undefined ? undefined : { maxMs: warmupMaxMs },
    }),
  };
}

/** The concurrencies of `--sweep 1,2,4,8`, growing; undefined without it. */
export function sweepLevels(command: BenchCommand): number[] | undefined {
  const text = command.options.sweep?.[0];
  if (text === undefined) return undefined;
  const levels = text.split(',').map((part) => parseCount('--sweep', part.trim()));
  if (levels.length < 2 || levels.some((n, i) => i > 0 && n <= levels[i - 1]!))
    throw usage(`--sweep wants two or more growing concurrencies (1,2,4,8), not "${text}"`);
  return levels;
}

/** A target reached as `rxmcp proxy` reaches an upstream; each `open` a fresh client (and process). */
function benchTarget(
  upstream: Upstream,
  io: CliIo,
  progress: Progress,
  auth: CliAuth | undefined,
  serverPid: number | undefined,
): BenchTarget {
  const logger = progressLogger(progress, verbose(io) ? 'info' : 'error');
  return {
    name: upstream.name,
    how:
      upstream.kind === 'stdio'
        ? `stdio: ${[upstream.command, ...upstream.args].join(' ')}`
        : describeTransport(upstream),
    async open(): Promise<BenchConnection> {
      const started = await startUpstream(upstream, {
        info: { name: 'rxmcp bench', version: packageVersion() },
        logger,
        stderrLine: (name, line) => {
          if (verbose(io)) progress.note(`${name}: ${line}`);
        },
        ...(auth ? { authFor: () => auth } : {}),
      });
      if (!started.ok) throw new Error(`${upstream.name}: ${started.cause}`);
      const pid = upstream.kind === 'stdio' ? (started.transport as { pid?: number }).pid : serverPid;
      return {
        client: started.client,
        ...(pid !== undefined ? { pid } : {}),
        close: () => closeUpstreams([started]),
      };
    },
  };
}

/**
 * The targets, with their open connections counted: an interrupted run waits (at most `withinMs`)
 * for the engine to close them, so that no server process outlives the command.
 */
function tracked(targets: readonly BenchTarget[]) {
  const open = new Set<BenchConnection>();
  const wrapped = targets.map((target): BenchTarget => ({
    ...target,
    open: async () => {
      const connection = await target.open();
      const counted: BenchConnection = {
        ...connection,
        close: () => connection.close().finally(() => open.delete(counted)),
      };
      open.add(counted);
      return counted;
    },
  }));
  const closed = async (withinMs: number) => {
    for (let waited = 0; open.size > 0 && waited < withinMs; waited += 50) await new Promise((r) => setTimeout(r, 50));
  };
  return { targets: wrapped, closed };
}

/** The live progress line: rewritten in place on a terminal, a line per repetition elsewhere. */
function progressLine(io: CliIo): (event: BenchEvent) => void {
  const tty = io.stderr.isTTY === true;
  return (event) => {
    if (event.type === 'phase' && tty)
      io.stderr.write(`\r\u001b[2K${event.target}, repetition ${event.rep}: ${event.phase}…`);
    if (event.type === 'rep') {
      const { steady, warmUp } = event.result;
      const line = `${event.target}, repetition ${event.rep}: ${formatNumber(steady.perSecond)} calls/s, p99 ${formatNumber(steady.p99Ms)} ms (warm-up ${formatNumber(warmUp.durationMs / 1000)} s${warmUp.settled ? '' : ', not settled'})`;
      io.stderr.write(tty ? `\r\u001b[2K${line}\n` : `rxmcp: ${line}\n`);
    }
  };
}

/** Writes the outputs asked for; resolves with the exit code (1 when --compare finds a worse figure). */
async function publish(command: BenchCommand, report: BenchReport, io: CliIo, progress: Progress): Promise<number> {
  const json = command.options.json?.[0];
  const html = command.options.html?.[0];
  const table = formatTable(report);
  if (json === '-') {
    io.stderr.write(table);
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    io.stdout.write(table);
    if (json !== undefined) await writeFile(json, `${JSON.stringify(report, null, 2)}\n`);
  }
  if (html !== undefined) await writeFile(html, renderHtml(report));
  const baseline = command.options.compare?.[0];
  if (baseline === undefined) return EXIT.ok;
  const before = JSON.parse(await readFile(baseline, 'utf8')) as BenchReport;
  const worse = compareReports(before, report);
  for (const line of worse) progress.error(line);
  // A flagged run still fails on a worse figure (the safe side), but says why it may be noise.
  for (const [which, run] of [
    ['the baseline', before],
    ['this run', report],
  ] as const) {
    const flagged = (run.targets ?? []).filter((t) => t.summary?.noisy).map((t) => t.name);
    if (flagged.length > 0)
      progress.note(`${which} is not for quoting for ${flagged.join(', ')}: compare runs made alike`);
  }
  if (worse.length === 0) progress.note(`no figure is worse than ${baseline} beyond its spread`);
  return worse.length === 0 ? EXIT.ok : EXIT.failed;
}

/** Runs `rxmcp bench`; resolves with the exit code. */
export async function runBenchCommand(command: BenchCommand, io: CliIo): Promise<number> {
  const progress = createProgress(io.stderr);
  const mix = command.options.mix?.[0];
  const mixText =
    mix === undefined
      ? undefined
      : await readFile(mix, 'utf8').catch(() => {
          throw usage(`cannot read the weights file ${mix}`);
        });
  const options = benchOptions(command, mixText);
  const levels = sweepLevels(command);
  const headers = Object.fromEntries((command.options.header ?? []).map(parseHeader));
  const port = command.options['callback-port']?.[0];
  const callbackPort = port === undefined ? 0 : parsePort('bench', '--callback-port', port);
  const upstreams = command.targets.map((t) => targetUpstream(t, headers));
  const names = upstreams.map((u) => u.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw usage(`two targets are named "${twice}": name them (name=target)`);
  const auths = upstreams.map((u) =>
    u.kind === 'http'
      ? createCliAuth({
          callbackPort,
          clientName: 'rxmcp bench',
          show: (url) => progress.note(`${u.name} asks you to sign in: open ${url.href}`),
        })
      : undefined,
  );
  const pidText = command.options.pid?.[0];
  const pid = pidText === undefined ? undefined : parseCount('--pid', pidText);
  const { targets, closed } = tracked(
    upstreams.map((u, i) =>
      u.kind === 'ws'
        ? transportTarget({
            name: u.name,
            how: `ws ${u.url.href}`,
            transport: () => createWebSocketClientTransport({ url: u.url, headers: u.headers }),
            client: { name: 'rxmcp bench', version: packageVersion() },
          })
        : benchTarget(u, io, progress, auths[i], pid),
    ),
  );
  try {
    const report = await new Promise<BenchReport | undefined>((resolve, reject) => {
      const show = progressLine(io);
      const run$ = levels ? runSweep({ ...options, targets }, levels) : runBench({ ...options, targets });
      const running = run$.subscribe({
        next: (event) => {
          show(event);
          if (event.type === 'report') resolve(event.report);
        },
        error: reject,
        complete: () => resolve(undefined),
      });
      void io.interrupted.then(async () => {
        running.unsubscribe();
        await closed(CLOSE_WAIT_MS);
        resolve(undefined);
      });
    });
    if (report === undefined) {
      progress.note('stopped before the end: no report');
      return EXIT.ok;
    }
    return await publish(command, report, io, progress);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    progress.error(causeOf(error));
    return EXIT.failed;
  } finally {
    await Promise.allSettled(auths.map((a) => a?.close()));
  }
}
