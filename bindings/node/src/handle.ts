/**
 * A native handle's life: used by calls, freed exactly once, by `close()` or, for an object the
 * program dropped unclosed, by a FinalizationRegistry.
 *
 * Node runs JS on one thread, so a synchronous C call can never overlap a `close()`. An async
 * `execute` can: it spans prepare, the host functions, and finish. It holds the handle (`hold`)
 * for that span, and a `close()` in between stops new calls at once but frees the native object
 * only when the last holder lets go.
 */
import { ClosedError, ToolRegistryError } from "./errors.js";
import { c } from "./native.js";

type Free = (ptr: unknown) => void;

/**
 * The safety net: closes the handle of an unclosed, collected owner. It goes through `close()`,
 * not straight to the free, because others may still hold the handle without the owner: a JS
 * embedder's feeding loop in the middle of a batch frees it only when it lets go.
 */
const finalizer = new FinalizationRegistry<Handle>((handle) => {
  handle.close();
});

/** Native string arguments: a NUL inside would silently cut the string short in C. */
export function text(what: string, value: unknown): string {
  if (typeof value !== "string") {
    throw new TypeError(`${what} must be a string, not ${describe(value)}`);
  }
  const nul = value.indexOf("\0");
  if (nul >= 0) throw new ToolRegistryError(4, `${what} contains a NUL character at offset ${nul}`);
  return value;
}

/** A JSON argument: a string is sent as JSON text, anything else is encoded. */
export function json(what: string, value: unknown): string {
  let data: string;
  if (typeof value === "string") {
    data = value;
  } else if (value instanceof Uint8Array) {
    data = new TextDecoder("utf-8", { fatal: false }).decode(value);
  } else {
    if (value === undefined || typeof value === "function" || typeof value === "symbol") {
      throw new TypeError(`${what} must be JSON text or a JSON value, not ${describe(value)}`);
    }
    try {
      data = JSON.stringify(value);
    } catch (e) {
      throw new TypeError(`${what} cannot be encoded as JSON: ${(e as Error).message}`);
    }
  }
  const nul = data.indexOf("\0");
  if (nul >= 0) throw new ToolRegistryError(3, `${what} contains a NUL character at offset ${nul}`);
  return data;
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? `an object (${value.constructor?.name ?? "Object"})` : `a ${typeof value}`;
}

/** Throws the library's error for a failed status; the message string was freed by koffi. */
export function check(status: number, err: (string | null)[]): void {
  if (status !== 0) throw new ToolRegistryError(status, err[0] ?? "");
}

/** Runs a C function `fn(ptr, ...args, &out, &err)` and answers the output string. */
export function out(fn: (...a: any[]) => number, ptr: unknown, ...args: unknown[]): string {
  const o: (string | null)[] = [null];
  const e: (string | null)[] = [null];
  const status = fn(ptr, ...args, o, e);
  check(status, e);
  return o[0] ?? "";
}

/** Runs a C function `fn(ptr, ...args, &err)` that has no output. */
export function act(fn: (...a: any[]) => number, ptr: unknown, ...args: unknown[]): void {
  const e: (string | null)[] = [null];
  check(fn(ptr, ...args, e), e);
}

/** One native object: its pointer until closed, and who holds it across awaits. */
export class Handle {
  #ptr: unknown;
  #holders = 0;
  #closing = false;
  readonly #free: Free;
  readonly #kind: string;
  readonly #token = {};

  constructor(owner: object, ptr: unknown, free: Free, kind: string) {
    this.#ptr = ptr;
    this.#free = free;
    this.#kind = kind;
    finalizer.register(owner, this, this.#token);
  }

  /** The pointer for a synchronous call; ClosedError after close. */
  get ptr(): unknown {
    if (this.#closing) throw new ClosedError(this.#kind);
    return this.#ptr;
  }

  get closed(): boolean {
    return this.#closing;
  }

  /** Keeps the native object alive across awaits; `release` once per `hold`. */
  hold(): unknown {
    const p = this.ptr;
    this.#holders++;
    return p;
  }

  release(): void {
    this.#holders--;
    if (this.#holders === 0 && this.#closing) this.#freeNow();
  }

  /** Stops new calls; frees now, or when the last holder releases. Again: nothing. */
  close(): void {
    if (this.#closing) return;
    this.#closing = true;
    finalizer.unregister(this.#token);
    if (this.#holders === 0) this.#freeNow();
  }

  #freeNow(): void {
    const p = this.#ptr;
    this.#ptr = null;
    if (p !== null) this.#free(p);
  }
}

/** Counts native frees, for the exactly-once tests. */
export const handleStats = { registries: 0, discoverers: 0, conversations: 0 };

export const freeRegistry: Free = (p) => {
  handleStats.registries++;
  c.registryFree(p);
};
export const freeDiscoverer: Free = (p) => {
  handleStats.discoverers++;
  c.discovererFree(p);
};
export const freeConversation: Free = (p) => {
  handleStats.conversations++;
  c.conversationFree(p);
};
