/**
 * Conversation: one chat's view of a registry: the tools of each request, and the model's calls
 * run against them (remembering the deferred tools the model found).
 */
import { needTwoStep } from "./embed.js";
import { ToolRegistryError } from "./errors.js";
import { Handle, act, describe, freeConversation, json, out } from "./handle.js";
import type { HostFunctions } from "./host.js";
import { c, twoStep } from "./native.js";
import { runTwoStep } from "./loop.js";
import { defined, discoveryDoc, names, type ConversationOptions, type ConversationTools, type ExecuteOptions } from "./types.js";

function conversationOptions(o: ConversationOptions | string): string | null {
  if (typeof o === "string") return json("options", o);
  if (o === null || typeof o !== "object") throw new TypeError(`options must be an object, not ${describe(o)}`);
  const doc = defined({
    api_format: o.apiFormat,
    mode: o.mode,
    search: o.search,
    loaded: names("loaded", o.loaded),
    strict: o.strict,
    defer_threshold_tokens: o.deferThresholdTokens,
    summary_max_tokens: o.summaryMaxTokens,
    discovery: o.discovery === undefined ? undefined : discoveryDoc(o.discovery),
    top_k: o.topK,
    max_tokens: o.maxTokens,
    namespaces: names("namespaces", o.namespaces),
    tags: names("tags", o.tags),
  });
  return Object.keys(doc).length ? JSON.stringify(doc) : null;
}

/**
 * What a Conversation takes from its registry: a `Registry` is one. Named by shape rather than
 * imported, so that registry.ts (which makes conversations) and this file do not import each other.
 */
export interface RegistryInternals {
  readonly _internals: { handle: Handle; host: HostFunctions };
}

/**
 * The tools of each request of one chat (mode `summaries`, `stable`, `native` or `auto`, in the
 * conversation's provider format) and the model's calls run against them. It shares the
 * registry's live state and its JS functions, and stays usable after the registry's `close`.
 * `options` may also be the library's JSON text.
 */
export class Conversation {
  readonly #handle: Handle;
  readonly #host: HostFunctions;

  constructor(registry: RegistryInternals, options: ConversationOptions | string = {}) {
    const internals = (registry as RegistryInternals | undefined)?._internals;
    if (!internals) throw new TypeError(`registry must be a Registry, not ${describe(registry)}`);
    const ptr: unknown[] = [null];
    const err: (string | null)[] = [null];
    const status = c.conversationNew(internals.handle.ptr, conversationOptions(options), ptr, err);
    if (status !== 0) throw new ToolRegistryError(status, err[0] ?? "");
    this.#handle = new Handle(this, ptr[0], freeConversation, "Conversation");
    this.#host = internals.host;
  }

  close(): void {
    this.#handle.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  get closed(): boolean {
    return this.#handle.closed;
  }

  /** The next request's `tools`, the `systemText` to add to the system prompt, their `fingerprint`. */
  tools(): ConversationTools {
    const doc = JSON.parse(this.toolsJson());
    return { tools: doc.tools, systemText: doc.system_text, fingerprint: doc.fingerprint };
  }

  /** `tools()` as the library's JSON text: `{"tools", "system_text", "fingerprint"}`. */
  toolsJson(): string {
    return out(c.conversationTools, this.#handle.ptr);
  }

  /**
   * Runs the model's calls like `Registry.execute` and keeps what the model found: tools returned
   * by a search and deferred tools it called are loaded into the next `tools()`.
   */
  async execute(reply: unknown, options: ExecuteOptions = {}): Promise<Record<string, unknown>[]> {
    return JSON.parse(await this.executeJson(reply, options));
  }

  /** `execute`'s answer as the library's JSON text, undecoded. */
  async executeJson(reply: unknown, options: ExecuteOptions = {}): Promise<string> {
    const prepare = needTwoStep(twoStep.conversationPrepare, "execute");
    const finish = needTwoStep(twoStep.conversationFinish, "execute");
    return runTwoStep(this.#handle, prepare, finish, this.#host, reply, options);
  }

  /** Loads these registered tools as if the model had found them; all or none (NOT_FOUND). */
  reveal(toolNames: string | string[]): void {
    const list = typeof toolNames === "string" ? [toolNames] : names("names", toolNames);
    act(c.conversationReveal, this.#handle.ptr, JSON.stringify(list));
  }

  /** The deferred tools loaded so far, in load order (pass back as `loaded` to restore). */
  loaded(): string[] {
    return JSON.parse(this.loadedJson());
  }

  loadedJson(): string {
    return out(c.conversationLoaded, this.#handle.ptr);
  }
}
