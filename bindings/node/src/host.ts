/**
 * The host side of the two-step tool loop: run a plan's host calls with the JS functions,
 * concurrently where the plan allows, and answer one result per host call for finish.
 *
 * The plan is the library's JSON (TWO_STEP_SPEC): only `calls[i].run`, `id`, `name`,
 * `arguments` and `concurrency_safe` are read here; the plan text itself goes back to finish
 * unchanged.
 */
import { ToolError } from "./errors.js";

/** What a host function gets besides its arguments. */
export interface CallContext {
  /** The registered tool name (after `call_deferred` resolved its target). */
  readonly name: string;
  /** The call's id, unique within the batch (the provider's call id when it has one). */
  readonly id: string;
  /** Aborted when the caller of `execute` aborts; a long call should stop then. */
  readonly signal: AbortSignal | undefined;
}

/**
 * A tool's function: gets the arguments (already checked against the tool's JSON Schema) and
 * answers what the model sees: a string as is, anything else as JSON (`undefined` as `null`).
 * Throwing a {@link ToolError} fails the call with its message; any other throw or rejection
 * fails it with `the host function of "NAME" panicked: MESSAGE`. The batch goes on either way.
 */
export type HostFunction = (args: any, ctx: CallContext) => unknown;

/** A function for every registered tool without its own: gets the tool name first. */
export type FallbackFunction = (name: string, args: any, ctx: CallContext) => unknown;

/** The JS functions of one registry, shared with its conversations (which outlive its close). */
export class HostFunctions {
  readonly byName = new Map<string, HostFunction>();
  fallback: FallbackFunction | null = null;

  lookup(name: string): ((args: unknown, ctx: CallContext) => unknown) | undefined {
    const fn = this.byName.get(name);
    if (fn) return fn;
    const fb = this.fallback;
    return fb ? (args, ctx) => fb(name, args, ctx) : undefined;
  }
}

interface PlanCall {
  run: string;
  id: string;
  name: string;
  arguments?: unknown;
  concurrency_safe?: boolean;
}

type Result = { id: string; content: string } | { id: string; error: string } | { id: string; unhandled: true };

/** Options of a batch: cancellation and how many calls may run at once. */
export interface RunOptions {
  signal?: AbortSignal | undefined;
  /** At most this many host calls at once (default: all that may run concurrently). */
  concurrency?: number | undefined;
}

function message(e: unknown): string {
  if (e instanceof Error) return e.message;
  try {
    return String(e);
  } catch {
    return "unprintable exception";
  }
}

/** A host function's answer as the text the model sees. */
function content(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "null";
  const s = JSON.stringify(value);
  if (s === undefined) throw new TypeError(`the result (${typeof value}) cannot be encoded as JSON`);
  return s;
}

async function runOne(call: PlanCall, host: HostFunctions, signal: AbortSignal | undefined): Promise<Result> {
  const fn = host.lookup(call.name);
  if (!fn) return { id: call.id, unhandled: true };
  try {
    const value = await fn(call.arguments ?? {}, { name: call.name, id: call.id, signal });
    return { id: call.id, content: content(value) };
  } catch (e) {
    if (e instanceof ToolError) return { id: call.id, error: e.message };
    return { id: call.id, error: `the host function of "${call.name}" panicked: ${message(e)}` };
  }
}

function aborted(signal: AbortSignal | undefined): Promise<never> | null {
  if (!signal) return null;
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * Runs the host calls of `planJson` and answers the results JSON for finish.
 *
 * Calls run concurrently up to `concurrency`, in plan order of start; a call marked
 * `concurrency_safe: false` starts after every earlier call finished, and later calls start
 * after it. An abort rejects at once with the signal's reason (finish is then not called).
 */
export async function runPlan(planJson: string, host: HostFunctions, options: RunOptions = {}): Promise<string> {
  const plan = JSON.parse(planJson) as { calls?: PlanCall[] };
  const calls = (plan.calls ?? []).filter((c) => c.run === "host");
  const limit = options.concurrency ?? Infinity;
  if (!(limit >= 1)) throw new RangeError(`concurrency must be at least 1, not ${limit}`);
  const signal = options.signal;
  signal?.throwIfAborted();
  const results: Result[] = new Array(calls.length);
  const work = (async () => {
    const running = new Set<Promise<void>>();
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const alone = call.concurrency_safe === false;
      while (running.size > 0 && (alone || running.size >= limit)) await Promise.race(running);
      signal?.throwIfAborted();
      const p: Promise<void> = runOne(call, host, signal).then((r) => {
        results[i] = r;
        running.delete(p);
      });
      running.add(p);
      if (alone) await p;
    }
    await Promise.all(running);
  })();
  const stop = aborted(signal);
  await (stop ? Promise.race([work, stop]) : work);
  // An abort seen after the last result still drops the batch: finish is not called.
  signal?.throwIfAborted();
  return JSON.stringify(results);
}
