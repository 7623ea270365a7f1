/** The one tool loop every `execute` goes through: prepare, the JS host calls, finish. */
import { Handle, json, out } from "./handle.js";
import { HostFunctions, runPlan } from "./host.js";
import { defined, type ExecuteOptions } from "./types.js";

/** Execute options as the library's JSON (NULL for the defaults). */
export function executeOptions(o: ExecuteOptions): string | null {
  if (o === null || typeof o !== "object") throw new TypeError("execute options must be an object");
  const doc = defined({ api_format: o.apiFormat, include_assistant: o.includeAssistant });
  return Object.keys(doc).length ? JSON.stringify(doc) : null;
}

/** prepare, the host calls, finish: the one tool loop every `execute` goes through. */
export async function runTwoStep(
  handle: Handle,
  prepare: (...a: any[]) => number,
  finish: (...a: any[]) => number,
  host: HostFunctions,
  reply: unknown,
  options: ExecuteOptions,
): Promise<string> {
  const calls = json("calls", reply);
  const opts = executeOptions(options);
  const ptr = handle.hold();
  try {
    const plan = out(prepare, ptr, calls, opts);
    const results = await runPlan(plan, host, { signal: options.signal, concurrency: options.concurrency });
    return out(finish, ptr, plan, results);
  } finally {
    handle.release();
  }
}

