/**
 * The raw C ABI through koffi: where the library comes from, every declaration of
 * include/toolregistry.h the package uses, and nothing else. The classes call these functions;
 * only this module knows C types.
 *
 * Strings the library hands out (outputs and `err_out` messages) are declared with the disposable
 * type `tr_string`: koffi decodes each to a JS string and then calls `tr_string_free` on the
 * original pointer, exactly once per conversion. Handles are BigInt pointers, freed by the
 * classes through `handle.ts`.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
// koffi is CommonJS; require keeps its types without a default-import shim.
const koffi: typeof import("koffi") = require("koffi");

/** Environment variable naming a libtoolregistry shared library to load instead of the package's. */
export const LIBRARY_ENV = "TOOLREGISTRY_LIB";

function libraryFileName(): string {
  if (process.platform === "darwin") return "libtoolregistry.dylib";
  if (process.platform === "win32") return "toolregistry.dll";
  return "libtoolregistry.so";
}

/**
 * Where the library is looked for, in order: `$TOOLREGISTRY_LIB`, the copy inside this package
 * (`lib/` beside `dist/`, put there by `npm pack` in scripts/dist.sh), then the system's (the
 * bare file name, resolved by the dynamic loader: LD_LIBRARY_PATH, ld.so.cache).
 */
export function libraryCandidates(): string[] {
  const override = process.env[LIBRARY_ENV];
  if (override) return [override];
  const own = join(dirname(fileURLToPath(import.meta.url)), "..", "lib", libraryFileName());
  return existsSync(own) ? [own] : [libraryFileName()];
}

function load(): { lib: ReturnType<typeof koffi.load>; path: string } {
  const candidates = libraryCandidates();
  const path = candidates[0]!;
  try {
    return { lib: koffi.load(path), path };
  } catch (e) {
    throw new Error(
      `toolregistry: cannot load the native library ${path}: ${(e as Error).message}. ` +
        `Reinstall the package (its tarball ships lib/${libraryFileName()}), install ` +
        `libtoolregistry system-wide, or point ${LIBRARY_ENV} at a libtoolregistry shared library.`,
    );
  }
}

const loaded = load();
const lib = loaded.lib;

/** The path of the library that was loaded (as given to the dynamic loader). */
export const libraryPath: string = loaded.path;

koffi.opaque("tr_registry");
koffi.opaque("tr_discoverer");
koffi.opaque("tr_conversation");
koffi.opaque("tr_call");

const trStringFree = lib.func("void tr_string_free(void *s)");

/** How many library strings were freed: tests check each answer is freed exactly once. */
export const stringStats = { freed: 0 };

koffi.disposable("tr_string", "str", (p: unknown) => {
  if (p === null || p === 0n) return;
  stringStats.freed++;
  trStringFree(p);
});

/** `tr_tool_fn`, for the native placeholder of JS host functions (see registry.ts). */
const toolFn = koffi.proto(
  "void tr_tool_fn(void *user_data, const char *tool_name, const char *args_json, tr_call *call)",
);

type Fn = (...args: any[]) => any;
const f = (decl: string): Fn => lib.func(decl) as Fn;

/** Every C function the package calls. Out-parameters are one-element arrays. */
export const c = {
  version: f("const char *tr_version()"),
  statusName: f("const char *tr_status_name(int32_t status)"),

  registryNew: f("int32_t tr_registry_new(const char *options, _Out_ tr_registry **out, _Out_ tr_string *err)"),
  registryFree: f("void tr_registry_free(tr_registry *r)"),
  register: f("int32_t tr_registry_register(tr_registry *r, const char *tools, _Out_ tr_string *out, _Out_ tr_string *err)"),
  registerCallable: f(
    "int32_t tr_registry_register_callable(tr_registry *r, const char *tool, tr_tool_fn *fn, void *user_data, void *free_user_data, _Out_ tr_string *out, _Out_ tr_string *err)",
  ),
  setFallback: f(
    "int32_t tr_registry_set_fallback(tr_registry *r, tr_tool_fn *fn, void *user_data, void *free_user_data, _Out_ tr_string *err)",
  ),
  callFail: f("int32_t tr_call_fail(tr_call *call, const char *message)"),
  unregister: f("int32_t tr_registry_unregister(tr_registry *r, const char *name, _Out_ tr_string *err)"),
  setMetadata: f("int32_t tr_registry_set_metadata(tr_registry *r, const char *name, const char *metadata, _Out_ tr_string *err)"),
  setEnabled: f("int32_t tr_registry_set_enabled(tr_registry *r, const char *name, bool enabled, _Out_ tr_string *err)"),
  disable: f("int32_t tr_registry_disable(tr_registry *r, const char *name, const char *reason, _Out_ tr_string *err)"),
  getSchemas: f("int32_t tr_registry_get_schemas(tr_registry *r, const char *options, _Out_ tr_string *out, _Out_ tr_string *err)"),
  deferredSummaries: f("int32_t tr_registry_deferred_summaries(tr_registry *r, _Out_ tr_string *out, _Out_ tr_string *err)"),
  enableDiscovery: f("int32_t tr_registry_enable_discovery(tr_registry *r, const char *options, _Out_ tr_string *err)"),
  call: f("int32_t tr_registry_call(tr_registry *r, const char *name, const char *args, _Out_ tr_string *out, _Out_ tr_string *err)"),
  toolsStatus: f("int32_t tr_registry_tools_status(tr_registry *r, _Out_ tr_string *out, _Out_ tr_string *err)"),
  execute: f("int32_t tr_registry_execute(tr_registry *r, const char *calls, const char *options, _Out_ tr_string *out, _Out_ tr_string *err)"),
  waitEmbeddings: f("int32_t tr_registry_wait_embeddings(tr_registry *r, uint64_t timeout_ms, _Out_ bool *done, _Out_ tr_string *err)"),
  embeddingStatus: f("int32_t tr_registry_embedding_status(tr_registry *r, _Out_ tr_string *out, _Out_ tr_string *err)"),
  enableUsage: f("int32_t tr_registry_enable_usage(tr_registry *r, const char *path, _Out_ tr_string *err)"),
  recordUsage: f("int32_t tr_registry_record_usage(tr_registry *r, const char *names, _Out_ size_t *counted, _Out_ tr_string *err)"),
  saveUsage: f("int32_t tr_registry_save_usage(tr_registry *r, _Out_ tr_string *err)"),
  usageStatus: f("int32_t tr_registry_usage_status(tr_registry *r, _Out_ tr_string *out, _Out_ tr_string *err)"),

  discovererNew: f("int32_t tr_discoverer_new(tr_registry *r, const char *options, _Out_ tr_discoverer **out, _Out_ tr_string *err)"),
  discovererFree: f("void tr_discoverer_free(tr_discoverer *d)"),
  discover: f("int32_t tr_discoverer_discover(tr_discoverer *d, const char *query, const char *options, _Out_ tr_string *out, _Out_ tr_string *err)"),
  explain: f("int32_t tr_discoverer_explain(tr_discoverer *d, const char *query, const char *name, const char *options, _Out_ tr_string *out, _Out_ tr_string *err)"),
  rebuildIndex: f("int32_t tr_discoverer_rebuild_index(tr_discoverer *d, _Out_ tr_string *err)"),

  conversationNew: f("int32_t tr_conversation_new(tr_registry *r, const char *options, _Out_ tr_conversation **out, _Out_ tr_string *err)"),
  conversationFree: f("void tr_conversation_free(tr_conversation *c)"),
  conversationTools: f("int32_t tr_conversation_tools(tr_conversation *c, _Out_ tr_string *out, _Out_ tr_string *err)"),
  conversationExecute: f("int32_t tr_conversation_execute(tr_conversation *c, const char *calls, const char *options, _Out_ tr_string *out, _Out_ tr_string *err)"),
  conversationReveal: f("int32_t tr_conversation_reveal(tr_conversation *c, const char *names, _Out_ tr_string *err)"),
  conversationLoaded: f("int32_t tr_conversation_loaded(tr_conversation *c, _Out_ tr_string *out, _Out_ tr_string *err)"),
};

/**
 * The two-step tool loop and the pull embedder (TWO_STEP_SPEC). Declared lazily: a library built
 * before they existed still loads, and only the methods that need them fail, with a clear error.
 */
function optional(decl: string): Fn | null {
  try {
    return lib.func(decl) as Fn;
  } catch {
    return null;
  }
}

export const twoStep = {
  registryPrepare: optional(
    "int32_t tr_registry_prepare_calls(tr_registry *r, const char *calls, const char *options, _Out_ tr_string *out, _Out_ tr_string *err)",
  ),
  registryFinish: optional(
    "int32_t tr_registry_finish_calls(tr_registry *r, const char *plan, const char *results, _Out_ tr_string *out, _Out_ tr_string *err)",
  ),
  conversationPrepare: optional(
    "int32_t tr_conversation_prepare_calls(tr_conversation *c, const char *calls, const char *options, _Out_ tr_string *out, _Out_ tr_string *err)",
  ),
  conversationFinish: optional(
    "int32_t tr_conversation_finish_calls(tr_conversation *c, const char *plan, const char *results, _Out_ tr_string *out, _Out_ tr_string *err)",
  ),
  setEmbedder: optional(
    "int32_t tr_registry_set_embedder(tr_registry *r, const char *options, void *fn, void *user_data, void *free_user_data, _Out_ tr_string *err)",
  ),
  takeEmbeddingJobs: optional(
    "int32_t tr_registry_take_embedding_jobs(tr_registry *r, size_t max, _Out_ tr_string *out, _Out_ tr_string *err)",
  ),
  putEmbeddings: optional("int32_t tr_registry_put_embeddings(tr_registry *r, const char *results, _Out_ tr_string *err)"),
};

/**
 * The native function every JS host function is registered with, so that the library counts the
 * tool as callable (`toolsStatus`) and replaces or drops it with the tool. The Node binding never
 * lets the library run calls itself (execute is prepare, JS, finish), so this only answers a call
 * that some other route made: with an error saying where its function lives.
 */
export const placeholderToolFn = koffi.register((_u: unknown, name: string, _a: string, call: unknown) => {
  c.callFail(call, `the host function of "${name}" is a JavaScript function: run its calls with execute() of the Node binding`);
}, koffi.pointer(toolFn));
