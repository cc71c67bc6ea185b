/**
 * Stripe's request parameters and error answers, for the Stripe stand-in
 * (packages/local-stack/src/stripe/). Stripe takes `application/x-www-form-urlencoded` bodies (and
 * query strings) with nested keys, as stripe-node writes them (`utils.ts` `stringifyRequestData`):
 * `a[b]=1`, `items[0][price]=p`, `expand[]=x`. A `Reader` takes the parameters an endpoint knows,
 * checks each as Stripe's API does (missing, empty, not an integer, not one of the allowed values)
 * and refuses any left over with Stripe's `parameter_unknown` error. Errors carry Stripe's type,
 * code, param and message. Dev and test only.
 */

export type Param = string | Param[] | { [key: string]: Param };
export type Params = { [key: string]: Param };

/** A Stripe API error, answered as `{ error: { type, code, message, param, … } }`. */
export class StripeError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code?: string;
  readonly param?: string;
  readonly extra: Record<string, unknown>;
  constructor(
    status: number,
    message: string,
    options: { type?: string; code?: string; param?: string; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.status = status;
    this.type = options.type ?? "invalid_request_error";
    this.code = options.code;
    this.param = options.param;
    this.extra = options.extra ?? {};
  }

  /** The body Stripe answers: code and its documentation link only when there is a code. */
  body(): { error: Record<string, unknown> } {
    return {
      error: {
        ...(this.code
          ? { code: this.code, doc_url: `https://stripe.com/docs/error-codes/${this.code.replaceAll("_", "-")}` }
          : {}),
        message: this.message,
        ...(this.param ? { param: this.param } : {}),
        ...this.extra,
        type: this.type,
      },
    };
  }
}

/** A 400 `invalid_request_error`. */
export const invalid = (message: string, param?: string, code?: string) =>
  new StripeError(400, message, { param, code });

/** Stripe's answer for an id it does not know: 404 on the object's own path, 400 in a parameter. */
export const noSuch = (object: string, id: string, param = "id", status = param === "id" ? 404 : 400) =>
  new StripeError(status, `No such ${object}: '${id}'`, { code: "resource_missing", param });

/** Decodes a form body or query string into nested parameters, as Stripe's API reads them. */
export function parseForm(text: string): Params {
  const root: Params = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    if (!match) {
      root[rawKey] = value;
      continue;
    }
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
    let node: Record<string, Param> = root;
    for (let i = 0; i < path.length; i++) {
      let key = path[i]!;
      const last = i === path.length - 1;
      // `a[]` appends: the next free index, as qs (which Stripe's API follows) reads it.
      if (key === "") key = String(Object.keys(node).length);
      if (last) {
        node[key] = value;
        break;
      }
      const next = node[key];
      if (typeof next !== "object" || next === null) node[key] = {};
      node = node[key] as Record<string, Param>;
    }
  }
  return arraysOf(root) as Params;
}

/** Objects whose keys are all indexes become arrays, in index order. */
function arraysOf(value: Param): Param {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const entries = keys.map((key) => [key, arraysOf(value[key]!)] as const);
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v);
  }
  return Object.fromEntries(entries);
}

const emptyMessage = (path: string) =>
  `You passed an empty string for '${path}'. We assume empty values are an attempt to unset a parameter; however '${path}' cannot be unset. You should remove '${path}' from your request or supply a non-empty value.`;

const oneOf = (values: readonly string[]) =>
  values.length <= 2 ? values.join(" or ") : `${values.slice(0, -1).join(", ")}, or ${values.at(-1)}`;

/**
 * Reads one object's parameters, remembering which it took; `done()` refuses the rest, as
 * Stripe refuses a parameter it does not know (`Received unknown parameter: …`).
 */
export class Reader {
  readonly params: Params;
  readonly prefix: string;
  private readonly taken = new Set<string>();

  constructor(params: Params, prefix = "") {
    this.params = params;
    this.prefix = prefix;
  }

  /** The parameter's full name, as Stripe names it in errors: `line_items[0][price]`. */
  path(name: string): string {
    return this.prefix ? `${this.prefix}[${name}]` : name;
  }

  has(name: string): boolean {
    return this.params[name] !== undefined;
  }

  private raw(name: string): Param | undefined {
    this.taken.add(name);
    return this.params[name];
  }

  /** A string; `""` is `null` (an unset) where `nullable`, refused otherwise. */
  string(
    name: string,
    options: { required?: boolean; nullable?: boolean; max?: number } = {},
  ): string | null | undefined {
    const value = this.raw(name);
    const path = this.path(name);
    if (value === undefined) {
      if (options.required) throw invalid(`Missing required param: ${path}.`, path, "parameter_missing");
      return undefined;
    }
    if (typeof value !== "string") throw invalid(`Invalid string: ${describe(value)}`, path);
    if (value === "") {
      if (options.nullable) return null;
      throw invalid(emptyMessage(path), path, "parameter_invalid_empty");
    }
    if (options.max !== undefined && value.length > options.max) {
      throw invalid(
        `Invalid string: ${value.slice(0, 20)}...; must be at most ${options.max} characters`,
        path,
        "string_length_exceeds_maximum",
      );
    }
    return value;
  }

  /** A whole number (Stripe: `Invalid integer: …`), at least `min` when given. */
  integer(name: string, options: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const value = this.raw(name);
    const path = this.path(name);
    if (value === undefined) {
      if (options.required) throw invalid(`Missing required param: ${path}.`, path, "parameter_missing");
      return undefined;
    }
    if (value === "") throw invalid(emptyMessage(path), path, "parameter_invalid_empty");
    if (typeof value !== "string" || !/^-?\d+$/.test(value)) {
      throw invalid(`Invalid integer: ${describe(value)}`, path, "parameter_invalid_integer");
    }
    const number = Number(value);
    if (options.min !== undefined && number < options.min) {
      throw invalid(`This value must be greater than or equal to ${options.min}.`, path);
    }
    if (options.max !== undefined && number > options.max) {
      throw invalid(`This value must be less than or equal to ${options.max}.`, path);
    }
    return number;
  }

  boolean(name: string): boolean | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (value === "true") return true;
    if (value === "false") return false;
    const path = this.path(name);
    if (value === "") throw invalid(emptyMessage(path), path, "parameter_invalid_empty");
    throw invalid(`Invalid boolean: ${describe(value)}`, path);
  }

  /** One of `values` (Stripe: `Invalid mode: must be one of payment, setup, or subscription`). */
  oneOf<const T extends string>(
    name: string,
    values: readonly T[],
    options: { required?: boolean } = {},
  ): T | undefined {
    const value = this.string(name, options);
    if (value === undefined || value === null) return undefined;
    if (!values.includes(value as T)) {
      throw invalid(`Invalid ${this.path(name)}: must be one of ${oneOf(values)}`, this.path(name));
    }
    return value as T;
  }

  /** A list; Stripe accepts `a[0]=…` and `a[]=…`. */
  list(name: string, options: { max?: number } = {}): Param[] | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const path = this.path(name);
    if (value === "") return [];
    if (!Array.isArray(value)) throw invalid(`Invalid array`, path);
    if (options.max !== undefined && value.length > options.max) {
      throw invalid(`Invalid array: must have at most ${options.max} elements`, path);
    }
    return value;
  }

  /** A list of strings. */
  strings(name: string, options: { max?: number } = {}): string[] | undefined {
    const list = this.list(name, options);
    return list?.map((item, index) => {
      if (typeof item !== "string") throw invalid(`Invalid string: ${describe(item)}`, `${this.path(name)}[${index}]`);
      return item;
    });
  }

  /** A nested object's reader, or undefined when absent. */
  object(name: string): Reader | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const path = this.path(name);
    if (typeof value !== "object" || Array.isArray(value)) throw invalid(`Invalid object`, path);
    return new Reader(value, path);
  }

  /**
   * `metadata`: new keys set, `metadata[key]=` removes a key, `metadata=` removes every key
   * (Stripe: "Individual keys can be unset by posting an empty value to them").
   */
  metadata(name = "metadata", current: Record<string, string> = {}): Record<string, string> | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const path = this.path(name);
    if (value === "") return {};
    if (typeof value !== "object" || Array.isArray(value)) throw invalid(`Invalid object`, path);
    const next = { ...current };
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== "string") throw invalid(`Invalid string: ${describe(item)}`, `${path}[${key}]`);
      if (key.length > 40) {
        throw invalid(
          `Metadata keys can have up to 40 characters, but you passed in a key that is ${key.length} characters.`,
          `${path}[${key}]`,
        );
      }
      if (item.length > 500) {
        throw invalid(
          `Metadata values can have up to 500 characters, but you passed in a value that is ${item.length} characters.`,
          `${path}[${key}]`,
        );
      }
      if (item === "") delete next[key];
      else next[key] = item;
    }
    if (Object.keys(next).length > 50) throw invalid("You can have up to 50 metadata keys.", path);
    return next;
  }

  /** `expand[]`: the paths to expand; every endpoint takes it. */
  expand(): string[] {
    return this.strings("expand") ?? [];
  }

  /** Refuses any parameter not read, as Stripe does. */
  done(): void {
    for (const name of Object.keys(this.params)) {
      if (!this.taken.has(name)) {
        const path = this.path(name);
        throw invalid(`Received unknown parameter: ${path}`, path, "parameter_unknown");
      }
    }
  }
}

const describe = (value: Param) => (typeof value === "string" ? value : JSON.stringify(value));
