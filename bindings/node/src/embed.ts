/**
 * A host embedder on the pull model (TWO_STEP_SPEC): the library queues texts to embed, this
 * module takes them (`tr_registry_take_embedding_jobs`), awaits the JS function, and puts the
 * vectors back (`tr_registry_put_embeddings`). No library thread ever calls into JS.
 */
import { ToolRegistryError } from "./errors.js";
import { Handle, act, out } from "./handle.js";
import { c, twoStep } from "./native.js";

/** A pause that does not keep the process alive on its own (the feeding loop's polling). */
const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Whether no enabled tool waits for its vector (`tr_registry_wait_embeddings` with 0 ms). */
export function embeddingsDone(ptr: unknown): boolean {
  const done = [false];
  act(c.waitEmbeddings, ptr, 0, done);
  return done[0]!;
}

/** Embeds a batch of texts: one vector of `dim` finite numbers per text, not all zeros. */
export type EmbedFunction = (texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];

/** Options of `Registry.setEmbedder`. */
export interface EmbedderOptions {
  /** The length of every vector (1..8192). */
  dim: number;
  /** Names the model for the vector cache (default `host:<dim>`). */
  identity?: string;
  /** A file keeping text-hash -> vector across restarts. */
  cachePath?: string;
  /** Texts per call of the function (default 64). */
  batchSize?: number;
}

export function needTwoStep<T>(fn: T | null, what: string): T {
  if (!fn) {
    throw new ToolRegistryError(
      7,
      `${what} needs a libtoolregistry with the two-step tool loop and the pull embedder ` +
        `(tr_registry_prepare_calls, tr_registry_take_embedding_jobs); the loaded library has none`,
    );
  }
  return fn;
}

function vector(v: unknown, dim: number): number[] {
  if (!v || typeof (v as ArrayLike<number>).length !== "number") throw new TypeError("a vector is not an array");
  const a = Array.from(v as ArrayLike<number>, Number);
  if (a.length !== dim) throw new TypeError(`a vector has ${a.length} numbers, expected ${dim}`);
  return a;
}

/** One registry's JS embedder: the function, and the loop that feeds it while jobs wait. */
export class PullEmbedder {
  readonly fn: EmbedFunction;
  readonly dim: number;
  readonly #batch: number;
  readonly #handle: Handle;
  #loop: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  /** The last error the loop itself hit (not the function's: those become failed jobs). */
  lastError: unknown = null;

  constructor(handle: Handle, fn: EmbedFunction, options: EmbedderOptions) {
    this.#handle = handle;
    this.fn = fn;
    this.dim = options.dim;
    this.#batch = options.batchSize ?? 64;
  }

  /** Another embedder replaced this one, or the registry closed: take no more jobs. */
  stop(): void {
    this.#stopped = true;
  }

  /** Makes sure the loop runs (soon, never inside the caller's stack); resolves when idle. */
  kick(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#loop) {
      this.#again = true;
      return this.#loop;
    }
    this.#loop = this.#run().finally(() => {
      this.#loop = null;
    });
    return this.#loop;
  }

  /** Embeds one query text (for a hybrid discover's `query_vector`). */
  async embedQuery(query: string): Promise<number[]> {
    const vs = await this.fn([query]);
    return vector(vs?.[0], this.dim);
  }

  async #run(): Promise<void> {
    await null;
    const take = needTwoStep(twoStep.takeEmbeddingJobs, "setEmbedder");
    const put = needTwoStep(twoStep.putEmbeddings, "setEmbedder");
    do {
      this.#again = false;
      let idle = false;
      while (!this.#stopped && !this.#handle.closed) {
        if (idle) {
          // Looked again after the pause: another embedder may have replaced this one, and its
          // jobs must not be taken here (their ids restart from 0 in the library).
          idle = false;
          await pause(2);
          continue;
        }
        let ptr: unknown;
        try {
          ptr = this.#handle.hold();
        } catch {
          return;
        }
        try {
          const jobs = JSON.parse(out(take, ptr, this.#batch)) as { id: number; text: string }[];
          if (jobs.length === 0) {
            // The library queues texts from its embedding thread, a moment after a change:
            // keep polling while any tool waits, stop when none does.
            if (embeddingsDone(ptr)) break;
            idle = true;
            continue;
          }
          let results: object[];
          try {
            const vs = await this.fn(jobs.map((j) => j.text));
            if (!vs || vs.length !== jobs.length) {
              throw new TypeError(`the embedder answered ${vs?.length ?? "nothing"} vectors for ${jobs.length} texts`);
            }
            results = jobs.map((j, i) => ({ id: j.id, vector: vector(vs[i], this.dim) }));
          } catch (e) {
            const msg = e instanceof Error ? e.message : String(e);
            results = jobs.map((j) => ({ id: j.id, error: msg }));
          }
          if (this.#stopped || this.#handle.closed) return;
          try {
            act(put, ptr, JSON.stringify(results));
          } catch (e) {
            // A bad vector (NaN, all zeros) refuses the whole put: fail those jobs instead.
            const msg = e instanceof Error ? e.message : String(e);
            act(put, ptr, JSON.stringify(jobs.map((j) => ({ id: j.id, error: msg }))));
          }
        } catch (e) {
          this.lastError = e;
          return;
        } finally {
          this.#handle.release();
        }
      }
    } while (this.#again && !this.#stopped);
  }
}
