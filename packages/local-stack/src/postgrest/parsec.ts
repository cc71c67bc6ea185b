/**
 * A small copy of Haskell's Parsec, the parser library PostgREST parses its query string with:
 * the same consumed/empty rules, error merging, `try`, labels and error texts, so that a request
 * PostgREST refuses is refused here with the same position and wording. Pure; dev and test only.
 */

interface Pos {
  line: number;
  column: number;
}

/** Parsec's message kinds, in the order its error messages sort them. */
const SYS_UNEXPECT = 0;
const UNEXPECT = 1;
const EXPECT = 2;
const MESSAGE = 3;
type Kind = typeof SYS_UNEXPECT | typeof UNEXPECT | typeof EXPECT | typeof MESSAGE;

interface Message {
  kind: Kind;
  text: string;
}

interface ParseError {
  pos: Pos;
  messages: Message[];
}

interface State {
  chars: string[];
  index: number;
  pos: Pos;
}

type Reply<T> =
  | { tag: "cok"; value: T; state: State; error: ParseError }
  | { tag: "eok"; value: T; state: State; error: ParseError }
  | { tag: "cerr"; error: ParseError }
  | { tag: "eerr"; error: ParseError };

export type Parser<T> = (state: State) => Reply<T>;

const comparePos = (a: Pos, b: Pos) => a.line - b.line || a.column - b.column;
const unknownError = (state: State): ParseError => ({ pos: state.pos, messages: [] });
const isUnknown = (error: ParseError) => error.messages.length === 0;
const errorAt = (pos: Pos, kind: Kind, text: string): ParseError => ({ pos, messages: [{ kind, text }] });

function mergeError(a: ParseError, b: ParseError): ParseError {
  // Prefer the error that says something, then the one further into the input.
  if (b.messages.length === 0 && a.messages.length > 0) return a;
  if (a.messages.length === 0 && b.messages.length > 0) return b;
  const order = comparePos(a.pos, b.pos);
  if (order === 0) return { pos: a.pos, messages: [...a.messages, ...b.messages] };
  return order > 0 ? a : b;
}

/** Replaces every message of the new message's kind, as Parsec's `setErrorMessage` does. */
const setMessage = (error: ParseError, message: Message): ParseError => ({
  pos: error.pos,
  messages: [message, ...error.messages.filter((m) => m.kind !== message.kind)],
});

function nextPos(pos: Pos, char: string): Pos {
  if (char === "\n") return { line: pos.line + 1, column: 1 };
  if (char === "\t") return { line: pos.line, column: pos.column + 8 - ((pos.column - 1) % 8) };
  return { line: pos.line, column: pos.column + 1 };
}

// Haskell's `show` -----------------------------------------------------------------------------

const ASCII_NAMES = [
  "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r", "SO", "SI",
  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
]; // prettier-ignore

/** One character as Haskell's `showLitChar` writes it, `next` deciding the `\&` separator. */
function showLitChar(char: string, next: string | undefined, quote: string): string {
  const code = char.codePointAt(0)!;
  if (char === "\\") return "\\\\";
  if (char === quote) return `\\${quote}`;
  if (code > 127) return `\\${code}${next !== undefined && /[0-9]/.test(next) ? "\\&" : ""}`;
  if (code === 127) return "\\DEL";
  if (code >= 32) return char;
  if (code === 14) return `\\SO${next === "H" ? "\\&" : ""}`;
  return `\\${ASCII_NAMES[code]}`;
}

/** A string as Haskell's `show` writes it: quoted, with Haskell escapes. */
export function showString(value: string): string {
  const chars = Array.from(value);
  return `"${chars.map((c, i) => showLitChar(c, chars[i + 1], '"')).join("")}"`;
}

/** A character as Haskell's `show` writes it: `'x'`. */
const showChar = (char: string) => `'${showLitChar(char, undefined, "'")}'`;

/** Haskell's `isSpace`. */
export const isSpace = (char: string) => /^[\t\n\v\f\r \u00a0\p{Zs}]$/u.test(char);

/** Haskell's `Data.Text.strip`. */
export function strip(value: string): string {
  const chars = Array.from(value);
  let start = 0;
  let end = chars.length;
  while (start < end && isSpace(chars[start]!)) start++;
  while (end > start && isSpace(chars[end - 1]!)) end--;
  return chars.slice(start, end).join("");
}

// Primitives -----------------------------------------------------------------------------------

export function satisfy(test: (char: string) => boolean): Parser<string> {
  return (state) => {
    const char = state.chars[state.index];
    if (char === undefined) return { tag: "eerr", error: errorAt(state.pos, SYS_UNEXPECT, "") };
    if (!test(char)) return { tag: "eerr", error: errorAt(state.pos, SYS_UNEXPECT, showString(char)) };
    const pos = nextPos(state.pos, char);
    return {
      tag: "cok",
      value: char,
      state: { chars: state.chars, index: state.index + 1, pos },
      error: { pos, messages: [] },
    };
  };
}

/** `p <?> label`: an empty failure (or an empty success with an error) expects `label`. */
export function label<T>(p: Parser<T>, text: string): Parser<T> {
  return (state) => {
    const reply = p(state);
    if (reply.tag === "eerr") return { tag: "eerr", error: setMessage(reply.error, { kind: EXPECT, text }) };
    if (reply.tag === "eok" && !isUnknown(reply.error)) {
      return { ...reply, error: setMessage(reply.error, { kind: EXPECT, text }) };
    }
    return reply;
  };
}

export const char = (c: string) =>
  label(
    satisfy((x) => x === c),
    showString(c),
  );
export const oneOf = (chars: string) => satisfy((x) => chars.includes(x));
export const noneOf = (chars: string) => satisfy((x) => !chars.includes(x));
export const anyChar = satisfy(() => true);
export const letter = label(
  satisfy((x) => /^\p{L}$/u.test(x)),
  "letter",
);
export const digit = label(
  satisfy((x) => x >= "0" && x <= "9"),
  "digit",
);

/** Parsec's `string`: fails at its start position, naming the first character that differs. */
export function string(text: string): Parser<string> {
  const expected = Array.from(text);
  return (state) => {
    if (expected.length === 0) return { tag: "eok", value: "", state, error: unknownError(state) };
    let index = state.index;
    let pos = state.pos;
    for (let i = 0; i < expected.length; i++) {
      const got = state.chars[index];
      if (got !== expected[i]) {
        const error = {
          pos: state.pos,
          messages: [
            { kind: EXPECT, text: showString(text) },
            { kind: SYS_UNEXPECT, text: got === undefined ? "" : showString(got) },
          ] as Message[],
        };
        return i === 0 ? { tag: "eerr", error } : { tag: "cerr", error };
      }
      pos = nextPos(pos, got!);
      index++;
    }
    return { tag: "cok", value: text, state: { chars: state.chars, index, pos }, error: { pos, messages: [] } };
  };
}

export const succeed =
  <T>(value: T): Parser<T> =>
  (state) => ({ tag: "eok", value, state, error: unknownError(state) });

/** Parsec's `mzero` (and `guard False`). */
export const fail: Parser<never> = (state) => ({ tag: "eerr", error: unknownError(state) });

export const unexpected =
  (text: string): Parser<never> =>
  (state) => ({ tag: "eerr", error: errorAt(state.pos, UNEXPECT, text) });

// Combinators ----------------------------------------------------------------------------------

export function bind<A, B>(p: Parser<A>, f: (value: A) => Parser<B>): Parser<B> {
  return (state) => {
    const first = p(state);
    if (first.tag !== "cok" && first.tag !== "eok") return first;
    const second = f(first.value)(first.state);
    if (first.tag === "cok") {
      // After consuming, an empty result of the rest counts as consumed.
      if (second.tag === "eok") {
        return {
          tag: "cok",
          value: second.value,
          state: second.state,
          error: mergeUnlessUnknown(first.error, second.error),
        };
      }
      if (second.tag === "eerr") return { tag: "cerr", error: mergeUnlessUnknown(first.error, second.error) };
      return second;
    }
    if (second.tag === "eok") return { ...second, error: mergeUnlessUnknown(first.error, second.error) };
    if (second.tag === "eerr") return { tag: "eerr", error: mergeUnlessUnknown(first.error, second.error) };
    return second;
  };
}

const mergeUnlessUnknown = (first: ParseError, second: ParseError) =>
  isUnknown(first) ? second : mergeError(first, second);

export const map = <A, B>(p: Parser<A>, f: (value: A) => B): Parser<B> => bind(p, (a) => succeed(f(a)));
/** `p <* q` */
export const left = <A>(p: Parser<A>, q: Parser<unknown>): Parser<A> => bind(p, (a) => map(q, () => a));
/** `p *> q` */
export const right = <B>(p: Parser<unknown>, q: Parser<B>): Parser<B> => bind(p, () => q);
/** `p $> value` */
export const as = <T>(p: Parser<unknown>, value: T): Parser<T> => map(p, () => value);

/** `p <|> q`: `q` only when `p` failed without consuming; their errors merge. */
export function alt<T>(...parsers: Parser<T>[]): Parser<T> {
  return parsers.reduce((p, q) => (state) => {
    const first = p(state);
    if (first.tag !== "eerr") return first;
    const second = q(state);
    if (second.tag === "eerr") return { tag: "eerr", error: mergeError(first.error, second.error) };
    if (second.tag === "eok") return { ...second, error: mergeError(first.error, second.error) };
    return second;
  });
}

/** `try p`: a failure after consuming counts as empty. */
export function attempt<T>(p: Parser<T>): Parser<T> {
  return (state) => {
    const reply = p(state);
    return reply.tag === "cerr" ? { tag: "eerr", error: reply.error } : reply;
  };
}

export function lookAhead<T>(p: Parser<T>): Parser<T> {
  return (state) => {
    const reply = p(state);
    if (reply.tag === "cok" || reply.tag === "eok") {
      return { tag: "eok", value: reply.value, state, error: unknownError(state) };
    }
    return reply;
  };
}

export function many<T>(p: Parser<T>): Parser<T[]> {
  return (state) => {
    const values: T[] = [];
    let current = state;
    let consumed = false;
    for (;;) {
      const reply = p(current);
      if (reply.tag === "cerr") return reply;
      if (reply.tag === "eerr") {
        return consumed
          ? { tag: "cok", value: values, state: current, error: reply.error }
          : { tag: "eok", value: values, state: current, error: reply.error };
      }
      if (reply.tag !== "cok") throw new Error("many: a parser that accepts an empty string");
      values.push(reply.value);
      current = reply.state;
      consumed = true;
    }
  };
}

export const many1 = <T>(p: Parser<T>): Parser<T[]> => bind(p, (x) => map(many(p), (xs) => [x, ...xs]));
export const option = <T>(fallback: T, p: Parser<T>): Parser<T> => alt(p, succeed(fallback));
export const optionMaybe = <T>(p: Parser<T>): Parser<T | undefined> => option<T | undefined>(undefined, p);
export const sepBy1 = <T>(p: Parser<T>, sep: Parser<unknown>): Parser<T[]> =>
  bind(p, (x) => map(many(right(sep, p)), (xs) => [x, ...xs]));
export const sepBy = <T>(p: Parser<T>, sep: Parser<unknown>): Parser<T[]> => alt(sepBy1(p, sep), succeed<T[]>([]));
export const between = <T>(open: Parser<unknown>, close: Parser<unknown>, p: Parser<T>): Parser<T> =>
  right(open, left(p, close));
export const sequence = <T>(parsers: Parser<T>[]): Parser<T[]> =>
  parsers.reduce<Parser<T[]>>((acc, p) => bind(acc, (xs) => map(p, (x) => [...xs, x])), succeed<T[]>([]));

/** Parsec's `anyToken`, showing the token as a Haskell `Char`; like Parsec's, it leaves the position where it was. */
const anyToken: Parser<string> = (state) => {
  const char = state.chars[state.index];
  if (char === undefined) return { tag: "eerr", error: errorAt(state.pos, SYS_UNEXPECT, "") };
  const next = { chars: state.chars, index: state.index + 1, pos: state.pos };
  return { tag: "cok", value: char, state: next, error: unknownError(next) };
};

export function notFollowedBy(p: Parser<string>, show: (value: string) => string = showChar): Parser<undefined> {
  return attempt(
    alt(
      bind(attempt(p), (c) => unexpected(show(c))),
      succeed(undefined),
    ),
  );
}

export const eof = label(notFollowedBy(anyToken), "end of input");

/** `guard`: fails (empty, no message) when `ok` is false. */
export const guard = (ok: boolean): Parser<undefined> => (ok ? succeed(undefined) : fail);

/** Defers building a recursive parser until it runs. */
export const lazy =
  <T>(make: () => Parser<T>): Parser<T> =>
  (state) =>
    make()(state);

// Running --------------------------------------------------------------------------------------

/** Parsec's `showErrorMessages "or" "unknown parse error" "expecting" "unexpected" "end of input"`. */
function showErrorMessages(messages: Message[]): string {
  if (messages.length === 0) return "unknown parse error";
  const sorted = [...messages].sort((a, b) => a.kind - b.kind);
  const of = (kind: Kind) => sorted.filter((m) => m.kind === kind).map((m) => m.text);
  const clean = (texts: string[]) => [...new Set(texts.filter((t) => t !== ""))];
  const commasOr = (texts: string[]) =>
    texts.length <= 1 ? (texts[0] ?? "") : `${clean(texts.slice(0, -1)).join(", ")} or ${texts[texts.length - 1]}`;
  const showMany = (prefix: string, texts: string[]) => {
    const cleaned = clean(texts);
    if (cleaned.length === 0) return "";
    return prefix ? `${prefix} ${commasOr(cleaned)}` : commasOr(cleaned);
  };
  const sysUnexpect = of(SYS_UNEXPECT);
  const unexpect = of(UNEXPECT);
  const showSysUnexpect =
    unexpect.length > 0 || sysUnexpect.length === 0
      ? ""
      : sysUnexpect[0] === ""
        ? "unexpected end of input"
        : `unexpected ${sysUnexpect[0]}`;
  const lines = [showSysUnexpect, showMany("unexpected", unexpect), showMany("expecting", of(EXPECT))];
  lines.push(showMany("", of(MESSAGE)));
  return clean(lines)
    .map((line) => `\n${line}`)
    .join("");
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; details: string };

/** Runs `p` on `input`, leaving the rest unread as Parsec does, and words an error as PostgREST does. */
export function parse<T>(p: Parser<T>, sourceName: string, input: string): Parsed<T> {
  const reply = p({ chars: Array.from(input), index: 0, pos: { line: 1, column: 1 } });
  if (reply.tag === "cok" || reply.tag === "eok") return { ok: true, value: reply.value };
  const { line, column } = reply.error.pos;
  const position = `(line ${line}, column ${column})`;
  return {
    ok: false,
    message: sourceName ? `"${sourceName}" ${position}` : position,
    details: strip(showErrorMessages(reply.error.messages).replace(/\n/g, " ")),
  };
}
