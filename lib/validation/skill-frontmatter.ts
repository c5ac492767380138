import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
/**
 * The YAML frontmatter of a skill's `SKILL.md` (Agent Skills format; SEP-2640): the block between
 * a leading `---` line and the next one. Frontmatter is small and plain (names, descriptions, a
 * license, a `metadata` map, lists), so this reads the part of YAML it uses: block mappings and
 * sequences, plain, single- and double-quoted scalars, literal (`|`) and folded (`>`) block
 * scalars, flow sequences and mappings of scalars, and comments. Plain scalars resolve as YAML
 * 1.2's core schema does (null, booleans, integers, floats, else strings). Anchors, aliases, tags,
 * complex keys and several documents are refused with a `FrontmatterError`: a reader that must
 * compare frontmatter field by field should not guess.
 */

/** Frontmatter that is missing or uses YAML this reader does not take. */
export class FrontmatterError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.SkillFrontmatter;
  override readonly name: string = 'FrontmatterError';

  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `${message} (frontmatter line ${line})`);
  }
}

/** A `SKILL.md` split into its frontmatter (parsed) and its Markdown body. */
export interface SkillDocument {
  readonly frontmatter: Record<string, unknown>;
  readonly body: string;
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;
/** The most frontmatter read: a peer's oversized block is refused before any YAML is parsed. */
export const MAX_FRONTMATTER_CHARS = 64 * 1024;

/** Splits and parses a `SKILL.md`; throws `FrontmatterError` when it has no frontmatter mapping. */
export function parseSkillDocument(text: string): SkillDocument {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FENCE.exec(source);
  if (match === null) throw new FrontmatterError('SKILL.md does not begin with a --- delimited frontmatter block');
  if (match[1]!.length > MAX_FRONTMATTER_CHARS)
    throw new FrontmatterError(`the frontmatter is longer than ${MAX_FRONTMATTER_CHARS} characters`);
  const value = parseYaml(match[1]!);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new FrontmatterError('the frontmatter is not a mapping');
  return { frontmatter: value as Record<string, unknown>, body: source.slice(match[0].length) };
}

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly number: number;
}

/** Parses the YAML subset described above into JSON values. */
export function parseYaml(yaml: string): unknown {
  const raw = yaml.split(/\r?\n/);
  const lines: Line[] = [];
  raw.forEach((text, index) => {
    if (/^\s*(#.*)?$/.test(text)) return;
    if (/^\t/.test(text)) throw new FrontmatterError('tabs may not indent YAML', index + 1);
    lines.push({ indent: text.length - text.trimStart().length, text: text.trim(), number: index + 1 });
  });
  if (lines.length === 0) return null;
  const reader = new BlockReader(lines, raw);
  const value = reader.block(lines[0]!.indent);
  if (reader.position < lines.length)
    throw new FrontmatterError('unexpected indentation', lines[reader.position]!.number);
  return value;
}

/**
 * `key: rest` split at the key's colon, or undefined when the line is no mapping entry. A scan, not
 * one regular expression, so that a long line costs linear time (a peer writes this text).
 */
function splitKey(text: string): { key: string; rest: string } | undefined {
  let key: string;
  let colon: number;
  if (text[0] === '"' || text[0] === "'") {
    const close = quotedEnd(text);
    if (close < 0) return undefined;
    colon = close + 1;
    while (text[colon] === ' ') colon++;
    if (text[colon] !== ':' || !/^(\s|$)/.test(text.slice(colon + 1, colon + 2))) return undefined;
    key = text.slice(0, close + 1);
  } else {
    if (/^[\s#'"{[\]},&*!|>%@`?]/.test(text) || /^-(\s|$)/.test(text)) return undefined;
    colon = text.search(/:(\s|$)/);
    if (colon < 0) return undefined;
    const comment = text.search(/\s#/);
    if (comment >= 0 && comment < colon) return undefined;
    key = text.slice(0, colon).trimEnd();
  }
  return { key, rest: text.slice(colon + 1).trimStart() };
}

class BlockReader {
  position = 0;

  constructor(
    private readonly lines: readonly Line[],
    private readonly raw: readonly string[],
  ) {}

  /** The block whose lines start at `indent`: a sequence or a mapping. */
  block(indent: number): unknown {
    const first = this.lines[this.position]!;
    return first.text === '-' || first.text.startsWith('- ') ? this.sequence(indent) : this.mapping(indent);
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (this.position < this.lines.length && this.lines[this.position]!.indent === indent) {
      const line = this.lines[this.position]!;
      const entry = splitKey(line.text);
      if (entry === undefined)
        throw new FrontmatterError(`expected "key: value", got ${JSON.stringify(line.text.slice(0, 80))}`, line.number);
      const key = scalarKey(entry.key, line.number);
      if (Object.hasOwn(out, key)) throw new FrontmatterError(`duplicate key ${JSON.stringify(key)}`, line.number);
      this.position++;
      out[key] = this.valueAfter(entry.rest, indent, line);
    }
    return out;
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    while (this.position < this.lines.length && this.lines[this.position]!.indent === indent) {
      const line = this.lines[this.position]!;
      if (line.text !== '-' && !line.text.startsWith('- ')) break;
      const rest = line.text.slice(1).trimStart();
      if (splitKey(rest) !== undefined && !/^["']/.test(rest)) {
        // `- key: value` opens a mapping whose keys line up with `key`.
        const itemIndent = indent + (line.text.length - rest.length);
        (this.lines as Line[])[this.position] = { indent: itemIndent, text: rest, number: line.number };
        out.push(this.mapping(itemIndent));
      } else {
        this.position++;
        out.push(this.valueAfter(rest, indent, line));
      }
    }
    return out;
  }

  /** The value after `key:` or `-` on `line`: inline, a block scalar, or a nested block. */
  private valueAfter(inline: string, indent: number, line: Line): unknown {
    const text = stripComment(inline);
    if (/^[|>]/.test(text)) return this.blockScalar(text, indent, line);
    const next = this.lines[this.position];
    if (text === '') {
      if (next !== undefined && next.indent > indent) return this.block(next.indent);
      // A sequence may sit at its key's own indentation.
      if (next !== undefined && next.indent === indent && /^-( |$)/.test(next.text) && /:$|: /.test(line.text))
        return this.sequence(indent);
      return null;
    }
    if (/^["']/.test(text) || /^[[{]/.test(text)) return scalarOrFlow(this.continued(text, indent), line.number);
    return resolvePlain(this.continued(text, indent));
  }

  /** A plain or quoted scalar that goes on over more-indented lines, folded with spaces. */
  private continued(text: string, indent: number): string {
    let out = text;
    while (this.position < this.lines.length && this.lines[this.position]!.indent > indent) {
      const next = this.lines[this.position]!;
      if (splitKey(next.text) !== undefined && !/^["']/.test(text)) break;
      out += ` ${stripComment(next.text)}`;
      this.position++;
    }
    return out;
  }

  private blockScalar(header: string, indent: number, line: Line): string {
    const match = /^([|>])([+-]?)(\d?)([+-]?)$/.exec(header);
    if (match === null) throw new FrontmatterError(`unsupported block scalar header ${header}`, line.number);
    const [, style, chompA, explicit, chompB] = match;
    const chomp = chompA || chompB;
    const body: string[] = [];
    let blockIndent = explicit ? indent + Number(explicit) : undefined;
    let rawIndex = line.number; // the raw line after the header (0-based index = number)
    while (rawIndex < this.raw.length) {
      const text = this.raw[rawIndex]!;
      const width = text.length - text.trimStart().length;
      if (text.trim() !== '') {
        blockIndent ??= width;
        if (width < blockIndent || width <= indent) break;
      }
      body.push(text.trim() === '' ? '' : text.slice(blockIndent ?? width));
      rawIndex++;
    }
    while (this.position < this.lines.length && this.lines[this.position]!.number <= rawIndex) this.position++;
    while (chomp !== '+' && body.length > 0 && body.at(-1) === '') body.pop();
    const joined = style === '|' ? body.join('\n') : foldLines(body);
    if (chomp === '-' || joined === '') return joined;
    return `${joined}\n`;
  }
}

function foldLines(lines: readonly string[]): string {
  let out = lines[0] ?? '';
  for (let index = 1; index < lines.length; index++) {
    const [text, previous] = [lines[index]!, lines[index - 1]!];
    if (text === '') out += '\n';
    else if (previous === '') out += text;
    else if (/^\s/.test(text) || /^\s/.test(previous)) out += `\n${text}`;
    else out += ` ${text}`;
  }
  return out;
}

function stripComment(text: string): string {
  if (/^["']/.test(text)) return text;
  const hash = text.search(/(^|\s)#/);
  return (hash < 0 ? text : text.slice(0, hash)).trimEnd();
}

function scalarKey(text: string, line: number): string {
  const value = /^["']/.test(text) ? quoted(text, line) : text.trim();
  return value;
}

function scalarOrFlow(text: string, line: number): unknown {
  if (/^["']/.test(text)) {
    const end = quotedEnd(text);
    if (end < 0) throw new FrontmatterError('unterminated quoted scalar', line);
    if (stripComment(text.slice(end + 1).trim()) !== '') throw new FrontmatterError('text after a quoted scalar', line);
    return quoted(text.slice(0, end + 1), line);
  }
  return flow(stripComment(text), line);
}

/** A flow sequence or mapping of scalars: `[a, "b"]`, `{ k: v }`. */
function flow(text: string, line: number): unknown {
  const open = text[0]!;
  const close = open === '[' ? ']' : '}';
  if (!text.endsWith(close)) throw new FrontmatterError('unterminated flow collection', line);
  const inner = text.slice(1, -1).trim();
  const items = inner === '' ? [] : splitFlow(inner, line);
  if (open === '[') return items.map((item) => flowScalar(item, line));
  const out: Record<string, unknown> = {};
  for (const item of items) {
    const colon = item.search(/:(\s|$)/);
    if (colon < 0) throw new FrontmatterError(`expected "key: value" in a flow mapping, got ${item}`, line);
    out[scalarKey(item.slice(0, colon).trim(), line)] = flowScalar(item.slice(colon + 1).trim(), line);
  }
  return out;
}

function splitFlow(text: string, line: number): string[] {
  const items: string[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '"' || char === "'") {
      const end = quotedEnd(text.slice(index));
      if (end < 0) throw new FrontmatterError('unterminated quoted scalar', line);
      index += end;
    } else if (char === '[' || char === '{') {
      throw new FrontmatterError('nested flow collections are not supported', line);
    } else if (char === ',') {
      items.push(text.slice(start, index).trim());
      start = index + 1;
    }
  }
  items.push(text.slice(start).trim());
  return items.filter((item, index) => item !== '' || index < items.length - 1);
}

function flowScalar(text: string, line: number): unknown {
  return /^["']/.test(text) ? quoted(text, line) : resolvePlain(text);
}

/** The index of the closing quote of the quoted scalar `text` starts with, or -1. */
function quotedEnd(text: string): number {
  const quote = text[0];
  for (let index = 1; index < text.length; index++) {
    if (quote === '"' && text[index] === '\\') index++;
    else if (text[index] === quote) {
      if (quote === "'" && text[index + 1] === "'") index++;
      else return index;
    }
  }
  return -1;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};

function quoted(text: string, line: number): string {
  if (quotedEnd(text) !== text.length - 1) throw new FrontmatterError(`malformed quoted scalar ${text}`, line);
  const inner = text.slice(1, -1);
  if (text[0] === "'") return inner.replace(/''/g, "'");
  return inner.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_all, code: string) => {
    if (code.length > 1) return String.fromCodePoint(parseInt(code.slice(1), 16));
    const escaped = ESCAPES[code];
    if (escaped === undefined) throw new FrontmatterError(`unknown escape \\${code}`, line);
    return escaped;
  });
}

/** A plain scalar as YAML 1.2's core schema resolves it. */
export function resolvePlain(text: string): unknown {
  if (/^[&*!]/.test(text)) throw new FrontmatterError(`anchors, aliases and tags are not supported: ${text}`);
  if (/^(~|null|Null|NULL)?$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return parseInt(text.slice(2), 16);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(text)) return NaN;
  return text;
}
