/**
 * Where a JSON text goes wrong, as a person reads it: line and column, the line itself and a
 * caret under the spot. `JSON.parse` says only a byte position, and not always that; this scanner
 * walks the text the way the JSON grammar does and stops at the first character that cannot be.
 * It runs only after `JSON.parse` has failed, so it is never on a path that succeeds.
 */

/** The first problem in a JSON text: where (0-based offset) and what was expected there. */
export interface JsonProblem {
  readonly offset: number;
  readonly message: string;
}

/** The first problem in `text`, or undefined when it is valid JSON. */
export function findJsonProblem(text: string): JsonProblem | undefined {
  const scanner = new Scanner(text);
  try {
    scanner.space();
    scanner.value();
    scanner.space();
    if (scanner.at < text.length) scanner.fail('the end of the file after the top-level value');
    return undefined;
  } catch (problem) {
    if (problem instanceof ScanError) return { offset: problem.offset, message: problem.message };
    throw problem;
  }
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const LITERALS = ['true', 'false', 'null'] as const;

class Scanner {
  at = 0;
  constructor(private readonly text: string) {}

  /** Throws: `wanted` was expected where the scanner stands; says what was found instead. */
  fail(wanted: string, offset = this.at): never {
    const found = offset >= this.text.length ? 'the end of the file' : JSON.stringify(this.text[offset]);
    throw new ScanError(offset, `expected ${wanted}, found ${found}`);
  }

  space(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at++;
  }

  value(): void {
    const c = this.text[this.at];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const literal of LITERALS) {
      if (this.text.startsWith(literal, this.at)) {
        this.at += literal.length;
        return;
      }
    }
    if (c === "'") this.fail('a value (strings take double quotes)');
    this.fail('a value (an object, array, string, number, true, false or null)');
  }

  private object(): void {
    this.at++;
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return;
    }
    for (;;) {
      if (this.text[this.at] !== '"') {
        this.fail(
          this.text[this.at] === '}'
            ? 'a property name in double quotes (is there a comma after the last property?)'
            : 'a property name in double quotes',
        );
      }
      this.string();
      this.space();
      if (this.text[this.at] !== ':') this.fail('":" after the property name');
      this.at++;
      this.space();
      this.value();
      this.space();
      const c = this.text[this.at];
      if (c === '}') {
        this.at++;
        return;
      }
      if (c !== ',') this.fail('"," or "}" after a property (is a comma missing?)');
      this.at++;
      this.space();
    }
  }

  private array(): void {
    this.at++;
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return;
    }
    for (;;) {
      if (this.text[this.at] === ']') this.fail('a value (is there a comma after the last item?)');
      this.value();
      this.space();
      const c = this.text[this.at];
      if (c === ']') {
        this.at++;
        return;
      }
      if (c !== ',') this.fail('"," or "]" after an item (is a comma missing?)');
      this.at++;
      this.space();
    }
  }

  private string(): void {
    this.at++;
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) this.fail('the closing double quote of the string');
      if (c === '"') {
        this.at++;
        return;
      }
      if (c === '\\') {
        const e = this.text[this.at + 1];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.at + 2, this.at + 6))) this.at += 6;
        else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.at += 2;
        else
          this.fail('an escape (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX) after the backslash', this.at + 1);
        continue;
      }
      if (c < ' ') this.fail('the closing double quote (a string cannot span lines: write \\n)');
      this.at++;
    }
  }

  private number(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 400));
    if (!match || match[0] === '-') this.fail('a number');
    this.at += match[0].length;
  }
}

/** The 1-based line and column of `offset` in `text` (columns count UTF-16 units, as editors mostly do). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** The longest stretch of a line shown; a longer line is shown around the column. */
const SHOWN_CHARS = 120;

/**
 * The line holding `offset`, numbered, with a caret under the column:
 *
 * ```
 *   3 |   },
 *     |    ^
 * ```
 */
export function showLine(text: string, offset: number): string {
  const { line, column } = lineAndColumn(text, offset);
  const start = offset - (column - 1);
  const end = text.indexOf('\n', start);
  let shown = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
  let caret = column - 1;
  if (shown.length > SHOWN_CHARS) {
    const from = Math.max(0, Math.min(caret - SHOWN_CHARS / 2, shown.length - SHOWN_CHARS));
    shown = shown.slice(from, from + SHOWN_CHARS);
    caret -= from;
  }
  // Tabs keep their width under the caret.
  const pad = shown.slice(0, caret).replace(/[^\t]/g, ' ');
  const number = String(line);
  return `  ${number} | ${shown}\n  ${' '.repeat(number.length)} | ${pad}^`;
}
