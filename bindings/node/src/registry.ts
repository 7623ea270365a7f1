/**
 * Registry and Discoverer: the JS face of the C ABI in native.ts.
 *
 * Everything but `execute`, `waitEmbeddings` and `discoverAsync` is synchronous: a C call that
 * answers in microseconds. `execute` is the two-step loop (prepare, the JS host functions
 * concurrently, finish); a JS embedder is fed on the pull model (embed.ts).
 */
import { Conversation } from "./conversation.js";
import { PullEmbedder, embeddingsDone, needTwoStep, type EmbedFunction, type EmbedderOptions } from "./embed.js";
import { ClosedError, ToolRegistryError } from "./errors.js";
import { Handle, act, describe, freeDiscoverer, freeRegistry, json, out, text } from "./handle.js";
import { HostFunctions, type FallbackFunction, type HostFunction } from "./host.js";
import { runTwoStep } from "./loop.js";
import { c, placeholderToolFn, twoStep } from "./native.js";
import {
  defined,
  discoverDoc,
  discoveryDoc,
  names,
  type ConversationOptions,
  type DiscoverOptions,
  type DiscoverResult,
  type DiscoveryOptions,
  type EmbeddingStatus,
  type ExecuteOptions,
  type Explanation,
  type Metadata,
  type RegistryOptions,
  type SchemaOptions,
  type StrictSchemas,
  type Summary,
  type ToolDefinition,
  type ToolStatus,
  type UsageStatus,
} from "./types.js";

/** The version of the loaded native library, e.g. `"0.1.0"`. */
export function version(): string {
  return c.version() as string;
}

/** The C name of a status code, e.g. `"TR_STATUS_NOT_FOUND"`. */
export function statusName(status: number): string {
  return c.statusName(status) as string;
}

/** The registry's JS embedder, shared with its discoverers (which outlive its close). */
export class EmbedderSlot {
  current: PullEmbedder | null = null;
}

/**
 * Tool definitions, their metadata and enabled state, the search index, and the JS functions
 * that run the tools' calls.
 *
 * `close()` (or `using registry = new Registry()`) frees it; after that every method throws a
 * `ClosedError`. Discoverers and conversations made from it keep working.
 */
export class Registry {
  readonly #handle: Handle;
  readonly #host = new HostFunctions();
  readonly #embedder = new EmbedderSlot();

  constructor(options: RegistryOptions = {}) {
    if (options === null || typeof options !== "object") throw new TypeError("options must be an object");
    const doc: Record<string, unknown> = {};
    if (options.discovery === true) doc.discovery = {};
    else if (options.discovery) doc.discovery = discoveryDoc(options.discovery);
    if (options.embedding === null) doc.embedding = null;
    else if (options.embedding !== undefined) {
      const e = options.embedding;
      doc.embedding = defined({ model_dir: e.modelDir, cache_path: e.cachePath, threads: e.threads });
    }
    if (typeof options.usage === "boolean") doc.usage = options.usage;
    else if (options.usage !== undefined) {
      if (options.usage === null || typeof options.usage !== "object") throw new TypeError("usage must be a boolean or an object");
      doc.usage = defined({ path: options.usage.path === undefined ? undefined : text("usage.path", options.usage.path) });
    }
    const ptr: unknown[] = [null];
    const err: (string | null)[] = [null];
    const status = c.registryNew(Object.keys(doc).length ? JSON.stringify(doc) : null, ptr, err);
    if (status !== 0) throw new ToolRegistryError(status, err[0] ?? "");
    this.#handle = new Handle(this, ptr[0], freeRegistry, "Registry");
  }

  /** Frees the registry (an `execute` in flight finishes first). Again: nothing. */
  close(): void {
    this.#embedder.current?.stop();
    this.#handle.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  get closed(): boolean {
    return this.#handle.closed;
  }

  /** For Conversation: the handle and the shared JS functions. */
  get _internals(): { handle: Handle; host: HostFunctions; embedder: EmbedderSlot } {
    return { handle: this.#handle, host: this.#host, embedder: this.#embedder };
  }

  #changed(): void {
    void this.#embedder.current?.kick();
  }

  // ---- tools ----

  /**
   * Registers tools, all or none, and answers the registered names. `tools` is one definition, an
   * array, or JSON text of either, in any shape: flat `{name, description, parameters}`, OpenAI
   * chat or Responses, Anthropic `input_schema`, MCP `inputSchema`; each may carry `namespace` and
   * `metadata: {defer, tags, search_hint}`. A registered name is replaced (and loses its function).
   */
  register(tools: ToolDefinition | ToolDefinition[] | string): string[] {
    const registered = JSON.parse(out(c.register, this.#handle.ptr, json("tools", tools))) as string[];
    for (const n of registered) this.#host.byName.delete(n);
    this.#changed();
    return registered;
  }

  /**
   * Registers one tool with the function that runs its calls in `execute` (see HostFunction):
   * `async (args, ctx) => result`. A tool of the same name is replaced, with its function.
   */
  registerFunction(tool: ToolDefinition | string, fn: HostFunction): string[] {
    if (typeof fn !== "function") throw new TypeError(`fn must be a function, not ${describe(fn)}`);
    const registered = JSON.parse(
      out(c.registerCallable, this.#handle.ptr, json("tool", tool), placeholderToolFn, null, null),
    ) as string[];
    for (const n of registered) this.#host.byName.set(n, fn);
    this.#changed();
    return registered;
  }

  /**
   * Sets the function that runs calls of registered tools without one of their own (a gateway
   * registers definitions only, plus this): `async (name, args, ctx) => result`. `null` removes it.
   */
  setFallback(fn: FallbackFunction | null): void {
    if (fn !== null && typeof fn !== "function") throw new TypeError(`fn must be a function or null, not ${describe(fn)}`);
    act(c.setFallback, this.#handle.ptr, fn ? placeholderToolFn : null, null, null);
    this.#host.fallback = fn;
  }

  /** Removes a tool by registered name (NOT_FOUND if none). Removing `discover_tools` turns discovery off. */
  unregister(name: string): void {
    act(c.unregister, this.#handle.ptr, text("name", name));
    this.#host.byName.delete(name);
  }

  /** Replaces the given metadata fields of a tool; the others keep their values. */
  setMetadata(name: string, metadata: Metadata): void {
    if (metadata === null || typeof metadata !== "object") throw new TypeError("metadata must be an object");
    const doc = defined({ defer: metadata.defer, tags: metadata.tags, search_hint: metadata.searchHint });
    act(c.setMetadata, this.#handle.ptr, text("name", name), JSON.stringify(doc));
    this.#changed();
  }

  /** Enables or disables a tool, or every tool of a namespace. */
  setEnabled(name: string, enabled: boolean): void {
    if (typeof enabled !== "boolean") throw new TypeError(`enabled must be a boolean, not ${describe(enabled)}`);
    act(c.setEnabled, this.#handle.ptr, text("name", name), enabled);
    this.#changed();
  }

  /** Disables a tool or namespace, recording why (shown to the model and in `toolsStatus`). */
  disable(name: string, reason?: string): void {
    act(c.disable, this.#handle.ptr, text("name", name), reason === undefined ? null : text("reason", reason));
  }

  /** Enables a tool or namespace again (clears the reason). */
  enable(name: string): void {
    this.setEnabled(name, true);
  }

  /**
   * Turns usage (co-use learning) on: the tool calls the library runs (`execute`, the two steps,
   * conversations) are recorded as tasks, and discovers let their best hits bring in the tools
   * they are used with (`brought_in` on the hit). With a `path` the counts are
   * loaded from that file and written back to it atomically (at most every 5 seconds while tasks
   * come, on `saveUsage`, and on `close`); a missing or corrupt file is an empty start (a corrupt
   * one's warning is in `usageStatus`).
   */
  enableUsage(path?: string): void {
    act(c.enableUsage, this.#handle.ptr, path === undefined ? null : text("path", path));
  }

  /**
   * Records one task: these tools were used together (for hosts that run tools themselves; it
   * records whether or not usage is enabled). Names of no registered tool, repeats and empty
   * names do not count, nor names past the first 32. Answers how many counted (0: nothing was
   * recorded). A name that is not a string is a `ToolRegistryError` (INVALID_ARGUMENT) and
   * records nothing.
   */
  recordUsage(task: string[]): number {
    if (!Array.isArray(task)) throw new TypeError(`names must be an array of strings, not ${describe(task)}`);
    const counted = [0];
    act(c.recordUsage, this.#handle.ptr, JSON.stringify(task), counted);
    return Number(counted[0]);
  }

  /** Writes the usage file now, if there is one and something is unsaved. */
  saveUsage(): void {
    act(c.saveUsage, this.#handle.ptr);
  }

  /** What usage holds: recording, the file, tasks, tools, memory, the last warning. */
  usageStatus(): UsageStatus {
    return JSON.parse(out(c.usageStatus, this.#handle.ptr));
  }

  /** Every registered tool, disabled ones included, sorted by name. */
  toolsStatus(): ToolStatus[] {
    return JSON.parse(out(c.toolsStatus, this.#handle.ptr));
  }

  /** The schemas of the enabled tools, sorted by name, in a provider's format. */
  getSchemas(options: SchemaOptions = {}): Record<string, unknown>[] {
    return JSON.parse(out(c.getSchemas, this.#handle.ptr, schemaOptions(options, false)));
  }

  /** `getSchemas` in OpenAI strict mode; tools that cannot be strict are named in `warnings`. */
  getStrictSchemas(options: SchemaOptions = {}): StrictSchemas {
    return JSON.parse(out(c.getSchemas, this.#handle.ptr, schemaOptions(options, true)));
  }

  /** One line per enabled deferred tool, in registration order, for a system prompt. */
  deferredSummaries(): Summary[] {
    return JSON.parse(out(c.deferredSummaries, this.#handle.ptr));
  }

  // ---- discovery ----

  /** Registers the built-ins `discover_tools` (and `call_deferred`) with these ranking options. */
  enableDiscovery(options: DiscoveryOptions = {}): void {
    act(c.enableDiscovery, this.#handle.ptr, JSON.stringify(discoveryDoc(options)));
  }

  /** Runs a built-in (`discover_tools`, `call_deferred`) as a model's call would; answers its JSON. */
  call(name: string, args: Record<string, unknown> | string = {}): unknown {
    return JSON.parse(out(c.call, this.#handle.ptr, text("tool name", name), json("arguments", args)));
  }

  /** A Discoverer with its own ranking options; it follows every change and outlives `close`. */
  discoverer(options: DiscoveryOptions = {}): Discoverer {
    return new Discoverer(this, options);
  }

  /** A Conversation over this registry (see Conversation). */
  conversation(options: ConversationOptions = {}): Conversation {
    return new Conversation(this, options);
  }

  // ---- the tool loop ----

  /**
   * Runs a model's tool calls and answers the next turn's messages, one result per call in call
   * order. `reply` is what the provider returned (an OpenAI chat message or its `tool_calls`, a
   * Responses response or its items, an Anthropic message or its blocks, a Gemini Content or
   * response), as objects or JSON text. The JS functions run concurrently (a tool with metadata
   * `concurrency_safe: false` alone); a bad call, an unknown tool, a throwing function each become
   * an error result, and the rest still run. Rejects with a ToolRegistryError only when `reply`
   * is no provider's call list or the options are bad.
   */
  async execute(reply: unknown, options: ExecuteOptions = {}): Promise<Record<string, unknown>[]> {
    return JSON.parse(await this.executeJson(reply, options));
  }

  /** `execute`'s answer as the library's JSON text, undecoded. */
  async executeJson(reply: unknown, options: ExecuteOptions = {}): Promise<string> {
    const prepare = needTwoStep(twoStep.registryPrepare, "execute");
    const finish = needTwoStep(twoStep.registryFinish, "execute");
    return runTwoStep(this.#handle, prepare, finish, this.#host, reply, options);
  }

  // ---- embeddings ----

  /**
   * Gives the registry a JS embedder, `async (texts) => vectors` with vectors of `dim` numbers;
   * it then ranks with `hybrid` by default. The library queues the catalog's texts and this
   * binding feeds them to the function in batches, on the event loop; a throw or a bad vector
   * fails that batch only (those tools stay findable by words). `discoverAsync` embeds queries.
   */
  setEmbedder(fn: EmbedFunction, options: EmbedderOptions): void {
    if (typeof fn !== "function") throw new TypeError(`fn must be a function, not ${describe(fn)}`);
    if (options === null || typeof options !== "object") throw new TypeError("options must be an object with dim");
    const set = needTwoStep(twoStep.setEmbedder, "setEmbedder");
    const doc = defined({ dim: options.dim, pull: true, identity: options.identity, cache_path: options.cachePath });
    const embedder = new PullEmbedder(this.#handle, fn, options);
    act(set, this.#handle.ptr, JSON.stringify(doc), null, null, null);
    this.#embedder.current?.stop();
    this.#embedder.current = embedder;
    void embedder.kick();
  }

  /**
   * Waits up to `timeoutMs` for every enabled tool to have its vector (or to have failed); true
   * when none is left waiting. With a JS embedder it feeds it meanwhile; with the built-in model
   * it waits off the event loop.
   */
  async waitEmbeddings(timeoutMs: number): Promise<boolean> {
    if (!(timeoutMs >= 0)) throw new RangeError("timeoutMs must be >= 0");
    const deadline = Date.now() + timeoutMs;
    const js = this.#embedder.current;
    const ptr = this.#handle.hold();
    try {
      if (!js) {
        // The built-in encoder (or none): the library waits, on a koffi worker thread.
        const done = [false];
        await new Promise<void>((resolve, reject) => {
          (c.waitEmbeddings as any).async(ptr, timeoutMs, done, [null], (e: unknown, status: number) => {
            if (e) reject(e);
            else if (status !== 0) reject(new ToolRegistryError(status, "waiting for embeddings failed"));
            else resolve();
          });
        });
        return done[0]!;
      }
      // A JS embedder: keep its feeding loop going and look every few milliseconds.
      for (;;) {
        void js.kick();
        if (this.#handle.closed) throw new ClosedError("Registry");
        if (js.lastError) throw js.lastError;
        if (embeddingsDone(ptr)) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      this.#handle.release();
    }
  }

  /** What the embedder has done; null without one. */
  embeddingStatus(): EmbeddingStatus | null {
    return JSON.parse(out(c.embeddingStatus, this.#handle.ptr));
  }
}

function schemaOptions(o: SchemaOptions, strict: boolean): string {
  if (o === null || typeof o !== "object") throw new TypeError("schema options must be an object");
  return JSON.stringify(
    defined({
      include_deferred: o.includeDeferred,
      api_format: o.apiFormat,
      tags: names("tags", o.tags),
      exclude_tags: names("excludeTags", o.excludeTags),
      names: names("names", o.names),
      strict: strict ? true : undefined,
    }),
  );
}

/**
 * Finds a registry's tools by exact name, `select:a,b`, or a natural-language query, with its
 * own ranking options. Sees every change to the registry at once and keeps working after the
 * registry's `close`. Close it (or `using`) when done.
 */
export class Discoverer {
  readonly #handle: Handle;
  readonly #embedder: EmbedderSlot;

  constructor(registry: Registry, options: DiscoveryOptions = {}) {
    if (!(registry instanceof Registry)) throw new TypeError(`registry must be a Registry, not ${describe(registry)}`);
    const doc = discoveryDoc(options);
    const ptr: unknown[] = [null];
    const err: (string | null)[] = [null];
    const { handle, embedder } = registry._internals;
    const status = c.discovererNew(handle.ptr, Object.keys(doc).length ? JSON.stringify(doc) : null, ptr, err);
    if (status !== 0) throw new ToolRegistryError(status, err[0] ?? "");
    this.#handle = new Handle(this, ptr[0], freeDiscoverer, "Discoverer");
    this.#embedder = embedder;
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

  /**
   * Up to `topK` tools for `query`, best first: `[{name, description, score, namespace,
   * deferred, intent?, schema?}]`. An exact tool name answers that tool alone (score 1);
   * `select:a,b` answers those tools in that order. Filters (`namespaces`, `tags`, `deferred`)
   * choose the tools before ranking. A query that holds several needs gives each hit the
   * `intent` it answers. With a JS embedder, `discover` ranks by words; `discoverAsync` embeds.
   */
  discover(query: string, options: DiscoverOptions = {}): DiscoverResult[] {
    return JSON.parse(this.discoverJson(query, options));
  }

  /** `discover`'s answer as the library's JSON text (what `maxTokens` counts). */
  discoverJson(query: string, options: DiscoverOptions = {}): string {
    const q = text("query", query);
    const o = options.topK !== undefined && Object.keys(options).length === 1 && Number.isInteger(options.topK) && options.topK >= 0
      ? `{"top_k":${options.topK}}`
      : JSON.stringify(discoverDoc(options));
    return out(c.discover, this.#handle.ptr, q, o);
  }

  /**
   * `discover`, with the query embedded by the registry's JS embedder first (hybrid ranking);
   * without one, or with `queryVector` given, the same as `discover`.
   */
  async discoverAsync(query: string, options: DiscoverOptions = {}): Promise<DiscoverResult[]> {
    const js = this.#embedder.current;
    if (js && options.queryVector === undefined) {
      this.#handle.ptr; // fail before calling the embedder when closed
      const v = await js.embedQuery(text("query", query));
      return this.discover(query, { ...options, queryVector: v });
    }
    return this.discover(query, options);
  }

  /**
   * Why `query` ranks `toolName` where it does, or why it is not in the answer: the analyzed
   * query, the tool's score per word and field, and, for a query that holds several needs, the
   * needs (`intents`) and the one the tool answers (`tool.intent`).
   */
  explain(query: string, toolName: string, options: { topK?: number } = {}): Explanation {
    const o = JSON.stringify(defined({ top_k: options.topK }));
    return JSON.parse(out(c.explain, this.#handle.ptr, text("query", query), text("tool name", toolName), o));
  }

  /** Rebuilds the search index (never needed: it is kept in step; changes no answer). */
  rebuildIndex(): void {
    act(c.rebuildIndex, this.#handle.ptr);
  }
}
