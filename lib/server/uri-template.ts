/**
 * RFC 6570 URI templates: expansion at all four levels, and matching a URI back to the variables
 * of a template (what `resources/read` needs to route a URI to a resource template).
 */

/** A variable's value: a string, a list, or an associative array (kept in insertion order). */
export type UriTemplateValue = string | number | boolean | readonly string[] | Readonly<Record<string, string>>;

/** The variables a matched URI yields: one string each, or a list for an exploded variable. */
export type UriTemplateVariables = Record<string, string | string[]>;

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  readonly prefix?: number;
}

interface Expression {
  readonly operator: string;
  readonly vars: readonly VarSpec[];
}

type Part = string | Expression;

interface OperatorRule {
  readonly first: string;
  readonly separator: string;
  readonly named: boolean;
  readonly ifEmpty: string;
  /** Reserved characters pass unencoded (`+` and `#`). */
  readonly allowReserved: boolean;
}

// RFC 6570 Appendix A: how each operator expands.
const RULES: Readonly<Record<string, OperatorRule>> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', allowReserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', allowReserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', allowReserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
};

/**
 * What one expression's text may be in a URI, per operator: empty, or (when there is a `lead`)
 * starting with it, and holding none of the `stops`.
 */
const SHAPES: Readonly<Record<string, { readonly lead?: string; readonly stops: string }>> = {
  '': { stops: '/?#' },
  '+': { stops: '?#' },
  '#': { lead: '#', stops: '' },
  '.': { lead: '.', stops: '/?#' },
  '/': { lead: '/', stops: '?#' },
  ';': { lead: ';', stops: '/?#' },
  '?': { lead: '?', stops: '#' },
  '&': { lead: '&', stops: '#' },
};

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encode(value: string, allowReserved: boolean): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (UNRESERVED.test(char) || (allowReserved && RESERVED.test(char))) {
      out += char;
    } else if (allowReserved && char === '%' && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) {
      out += char; // a pct-encoded triplet stays as it is in reserved expansion
    } else {
      const codePoint = value.codePointAt(i)!;
      if (codePoint > 0xffff) i++;
      out += encodeURIComponent(String.fromCodePoint(codePoint)).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      );
    }
  }
  return out;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parseExpression(body: string, template: string): Expression {
  const operator = '+#./;?&'.includes(body[0] ?? '') ? body[0]! : '';
  const list = operator ? body.slice(1) : body;
  if (/[=,!@|]/.test(operator)) throw new TypeError(`reserved operator in URI template ${template}`);
  const vars = list.split(',').map((spec): VarSpec => {
    const match = /^([A-Za-z0-9_.%]+)(?::([1-9]\d{0,3})|(\*))?$/.exec(spec);
    if (!match) throw new TypeError(`invalid variable ${JSON.stringify(spec)} in URI template ${template}`);
    return { name: match[1]!, explode: match[3] === '*', prefix: match[2] ? Number(match[2]) : undefined };
  });
  return { operator, vars };
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    if (open < 0) {
      parts.push(template.slice(at));
      break;
    }
    if (open > at) parts.push(template.slice(at, open));
    const close = template.indexOf('}', open);
    if (close < 0) throw new TypeError(`unclosed expression in URI template ${template}`);
    parts.push(parseExpression(template.slice(open + 1, close), template));
    at = close + 1;
  }
  return parts;
}

function expandExpression(
  expression: Expression,
  variables: Readonly<Record<string, UriTemplateValue | undefined>>,
): string {
  const rule = RULES[expression.operator]!;
  const items: string[] = [];
  const enc = (text: string) => encode(text, rule.allowReserved);
  for (const spec of expression.vars) {
    const raw = variables[spec.name];
    if (raw === undefined || raw === null) continue;
    if (typeof raw !== 'object') {
      let text = String(raw);
      if (spec.prefix !== undefined) text = [...text].slice(0, spec.prefix).join('');
      if (rule.named) items.push(text === '' ? spec.name + rule.ifEmpty : `${spec.name}=${enc(text)}`);
      else items.push(enc(text));
      continue;
    }
    const pairs: Array<[string | undefined, string]> = Array.isArray(raw)
      ? (raw as readonly string[]).map((v) => [undefined, v])
      : Object.entries(raw as Record<string, string>);
    if (pairs.length === 0) continue; // an empty list or map is undefined (RFC 6570 §2.3)
    if (!spec.explode) {
      const joined = pairs.flatMap(([k, v]) => (k === undefined ? [enc(v)] : [enc(k), enc(v)])).join(',');
      items.push(rule.named ? `${spec.name}=${joined}` : joined);
      continue;
    }
    for (const [key, value] of pairs) {
      const name = key ?? (rule.named ? spec.name : undefined);
      if (name === undefined) items.push(enc(value));
      else if (value === '' && rule.named) items.push(enc(name) + rule.ifEmpty);
      else items.push(`${key === undefined ? name : enc(name)}=${enc(value)}`);
    }
  }
  return items.length === 0 ? '' : rule.first + items.join(rule.separator);
}

/** Where an expression's text may end when it starts at `from`: the end of its longest possible run. */
function runEnd(uri: string, from: number, operator: string): number {
  const shape = SHAPES[operator]!;
  if (shape.lead !== undefined && uri[from] !== shape.lead) return from;
  let end = from + (shape.lead === undefined ? 0 : 1);
  while (end < uri.length && !shape.stops.includes(uri[end]!)) end++;
  return end;
}

/**
 * Splits `uri` along the template's parts in one pass, with no backtracking, so that matching takes
 * time linear in the URI whatever the template (#13: a backtracking regular expression took seconds
 * on 30 characters). An expression followed by a literal ends where that literal starts, at its
 * first (`shortest`) or last (`longest`) start within the expression's run; an expression followed by
 * another expression, or by nothing, takes its whole run. Returns each expression's text, or
 * undefined when the URI does not fit.
 */
function split(parts: readonly Part[], uri: string, prefer: 'shortest' | 'longest'): string[] | undefined {
  const texts: string[] = [];
  let at = 0;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!;
    if (typeof part === 'string') {
      if (!uri.startsWith(part, at)) return undefined;
      at += part.length;
      continue;
    }
    const last = runEnd(uri, at, part.operator);
    const next = parts[index + 1];
    let end = last;
    if (typeof next === 'string') {
      end = -1;
      if (prefer === 'shortest') {
        for (let candidate = at; candidate <= last && end < 0; candidate++)
          if (uri.startsWith(next, candidate)) end = candidate;
      } else {
        for (let candidate = last; candidate >= at && end < 0; candidate--)
          if (uri.startsWith(next, candidate)) end = candidate;
      }
      if (end < 0) return undefined;
    }
    texts.push(uri.slice(at, end));
    at = end;
  }
  return at === uri.length ? texts : undefined;
}

function bindMatch(expression: Expression, text: string | undefined, into: UriTemplateVariables): boolean {
  if (text === undefined || text === '') return true;
  const rule = RULES[expression.operator]!;
  const body = text.slice(rule.first.length);
  const items = expression.operator === '?' ? body.split('&') : body.split(rule.separator);
  if (rule.named) {
    const byName = new Map<string, string[]>();
    for (const item of items) {
      const eq = item.indexOf('=');
      const name = decode(eq < 0 ? item : item.slice(0, eq));
      const value = eq < 0 ? '' : decode(item.slice(eq + 1));
      byName.set(name, [...(byName.get(name) ?? []), value]);
    }
    for (const spec of expression.vars) {
      const values = byName.get(spec.name);
      if (values === undefined) continue;
      into[spec.name] = spec.explode ? values : values.join(',');
    }
    return true;
  }
  if (expression.vars.length === 1) {
    const spec = expression.vars[0]!;
    into[spec.name] = spec.explode ? items.map(decode) : decode(body);
    return true;
  }
  // Several variables in one expression: one item each, the last takes the rest.
  expression.vars.forEach((spec, index) => {
    const last = index === expression.vars.length - 1;
    const value = last ? items.slice(index).join(rule.separator) : items[index];
    if (value !== undefined) into[spec.name] = decode(value);
  });
  return true;
}

/** A parsed URI template: expands variables into a URI and matches a URI back to its variables. */
export interface UriTemplate {
  /** The template text, as given. */
  readonly template: string;
  /** The names of the template's variables, in order of appearance. */
  readonly variableNames: readonly string[];
  /** Expands the template (RFC 6570 levels 1 to 4). Undefined variables expand to nothing. */
  expand(variables: Readonly<Record<string, UriTemplateValue | undefined>>): string;
  /**
   * Matches a URI against the template; returns its variables (percent-decoded) or undefined when
   * the URI does not fit. Query expressions (`{?a,b}`) match their parameters in any order.
   */
  match(uri: string): UriTemplateVariables | undefined;
}

/**
 * Parses an RFC 6570 URI template. Throws a `TypeError` naming the problem when the template is
 * malformed (an unclosed brace, a bad variable name, a reserved operator).
 * @example
 * const template = parseUriTemplate('test://template/{id}/data');
 * template.expand({ id: '123' }); // 'test://template/123/data'
 * template.match('test://template/123/data'); // { id: '123' }
 */
export function parseUriTemplate(template: string): UriTemplate {
  const parts = parse(template);
  const expressions = parts.filter((part): part is Expression => typeof part !== 'string');
  return {
    template,
    variableNames: expressions.flatMap((expression) => expression.vars.map((spec) => spec.name)),
    expand: (variables) =>
      parts.map((part) => (typeof part === 'string' ? part : expandExpression(part, variables))).join(''),
    match(uri) {
      const found = split(parts, uri, 'shortest') ?? split(parts, uri, 'longest');
      if (!found) return undefined;
      const variables: UriTemplateVariables = {};
      expressions.forEach((expression, index) => bindMatch(expression, found[index], variables));
      return variables;
    },
  };
}
