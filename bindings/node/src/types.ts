/** The shapes of options and answers, in JS naming; answers keep the library's JSON keys. */

/** The provider formats (default `"openai-chat"`). */
export type ApiFormat = "openai-chat" | "openai-responses" | "anthropic" | "gemini";
/** `"reference"` reproduces toolregistry 0.19.0 bit for bit; `"hybrid"` fuses words and vectors. */
export type Profile = "reference" | "enhanced" | "hybrid";
export type ConversationMode = "summaries" | "stable" | "native" | "auto";
export type SearchSide = "client" | "server";

/** A tool definition in any accepted shape (flat, OpenAI chat/responses, Anthropic, MCP). */
export type ToolDefinition = Record<string, unknown>;

/** Ranking options (a Discoverer's, `discover_tools`', a conversation's `discovery`). */
export interface DiscoveryOptions {
  profile?: Profile;
  fieldWeights?: Partial<Record<"name" | "description" | "search_hint" | "tags" | "params" | "param_docs", number>>;
  minScoreRatio?: number;
  maxDfRatio?: number;
  k1?: number;
  b?: number;
  delta?: number;
  /**
   * `false` ranks every query as one need. By default a query that holds several ("convert 100
   * dollars to euros and then tell me the weather in Paris") is searched whole and per need, so
   * one need's near-duplicates do not take every place, and each hit names its need (`intent`).
   * The reference profile never splits.
   */
  intents?: boolean;
  /**
   * `false` ranks as if no usage were recorded. By default the answer's best hits bring in the
   * tools they are used with when the recorded usage says so (`broughtIn` on the hit, see
   * `Registry.recordUsage`); the reference profile never does.
   */
  usage?: boolean;
  /** `enableDiscovery` only: also register `call_deferred` (default true). */
  callDeferred?: boolean;
}

/** Options of one discover. */
export interface DiscoverOptions {
  /** At most this many hits (default 10). */
  topK?: number;
  apiFormat?: ApiFormat;
  /** OpenAI strict schemas on the hits that carry one. */
  strict?: boolean;
  /** Caps the answer at this many tokens (UTF-8 bytes of its JSON / 4). */
  maxTokens?: number;
  /** Only tools under one of these namespaces. */
  namespaces?: string[];
  /** Only tools carrying any of these tags. */
  tags?: string[];
  /** Only deferred (true) or only loaded (false) tools. */
  deferred?: boolean;
  /** Hybrid ranking with this query vector instead of calling an embedder. */
  queryVector?: ArrayLike<number>;
}

export interface DiscoverResult {
  name: string;
  description: string;
  score: number;
  namespace: string | null;
  deferred: boolean;
  /** The need of the query this tool answers, in the query's words; only when it holds several. */
  intent?: string;
  /**
   * Why the tool is in the answer when the query did not rank it there: a hit it is used with
   * brought it in ("used with `add_agenda` in 12 of its 15 tasks"; see `Registry.recordUsage`).
   */
  brought_in?: string;
  schema?: Record<string, unknown>;
  warning?: string;
}

// The explanation's shapes are type aliases, not interfaces, so that an Explanation stays
// assignable to Record<string, unknown> (what `explain` was typed as before they existed).

/** Why a query ranks a tool where it does (`Discoverer.explain`). */
export type Explanation = {
  query: string;
  profile: Profile;
  /** Each side of the fusion when ranked with `"hybrid"`, else null. */
  hybrid: HybridExplanation | null;
  /**
   * The query's needs in query order when it holds several (then the tool's score and rank are
   * the merged ones); empty for a query that is one need.
   */
  intents: IntentExplanation[];
  /** The tool the query names exactly (then it is the whole answer), or null. */
  exact_match: string | null;
  tokens: QueryToken[];
  scored_tokens: string[];
  analyzed_token_count: number;
  /** A sentence when the query was cut to the token limit, else null. */
  truncated: string | null;
  top_k: number;
  best_score: number | null;
  score_floor: number | null;
  result_count: number;
  tool: ToolExplanation;
};

/** One need of a query that holds several, and how that need's own ranking placed the tool. */
export type IntentExplanation = {
  /** The need, as the query words it. */
  text: string;
  /** The tool's score in the need's ranking over that ranking's best (1 for its best tool). */
  relative_score: number | null;
  /** The tool's 1-based place in the need's ranking; null when it is not there. */
  rank: number | null;
};

/** An analyzed query word and whether the query filter kept it. */
export type QueryToken = { token: string; df: number; df_ratio: number; kept: boolean; reason: string | null };

/** The explained tool's side. */
export type ToolExplanation = {
  name: string;
  /** `ranked`, `exact_match`, `other_exact_match`, `disabled`, `no_query_tokens`, `no_common_token`, `below_top_k` or `below_score_floor`. */
  outcome: string;
  reason: string;
  indexed: boolean;
  score: number | null;
  rank: number | null;
  /** The need of the query it answers (as a hit's `intent`), null when none. */
  intent: string | null;
  terms: {
    token: string;
    df: number;
    idf: number;
    catalog_idf: number;
    weighted_tf: number;
    tf_norm: number;
    query_weight: number;
    score: number;
    fields: { field: string; tf: number; weight: number; score: number }[];
  }[];
};

/** Each side of a `"hybrid"` ranking for the explained tool. */
export type HybridExplanation = {
  lexical_score: number | null;
  lexical_rank: number | null;
  cosine: number | null;
  semantic_rank: number | null;
  fused_score: number | null;
  fused_rank: number | null;
  phrase_score: number | null;
  embedded: boolean;
  note: string | null;
};

export interface SchemaOptions {
  /** Default true; false leaves deferred tools out. */
  includeDeferred?: boolean;
  apiFormat?: ApiFormat;
  tags?: string[];
  excludeTags?: string[];
  /** Exactly these tools, in this order, disabled ones included (other filters ignored). */
  names?: string[];
}

export interface StrictSchemas {
  tools: Record<string, unknown>[];
  warnings: { name: string; reason: string }[];
}

export interface Summary {
  name: string;
  description: string;
  namespace: string | null;
}

export interface ToolStatus {
  name: string;
  namespace: string | null;
  enabled: boolean;
  reason: string | null;
  deferred: boolean;
  tags: string[];
  callable: boolean;
  embedding?: "ready" | "pending" | "failed" | "none";
}

export interface EmbeddingStatus {
  embedder: string;
  dim: number;
  ready: number;
  pending: number;
  failed: number;
  embedded: number;
  warnings: string[];
}

export interface Metadata {
  defer?: boolean;
  tags?: string[];
  searchHint?: string;
}

export interface RegistryOptions {
  /** Enables `discover_tools` at once, with these options (`true`: the defaults). */
  discovery?: DiscoveryOptions | boolean;
  /** Loads the built-in sentence encoder from a local model folder; nothing is downloaded. */
  embedding?: { modelDir: string; cachePath?: string; threads?: number } | null;
  /** Turns usage (co-use learning) on at once, kept in `path` when given (see `enableUsage`). */
  usage?: { path?: string } | boolean;
}

/** What a registry's usage (co-use) holds (`Registry.usageStatus`). */
export interface UsageStatus {
  /** The calls the library runs are recorded (`enableUsage`). */
  recording: boolean;
  /** The usage file, if any. */
  path: string | null;
  /** Tasks recorded, loaded ones included. */
  tasks: number;
  /** Tools with counts. */
  tools: number;
  /** Bytes the counts take in memory, about. */
  memory_bytes: number;
  /** Why the file was ignored at start (an empty start) or the last write failed. */
  warning: string | null;
}

export interface ExecuteOptions {
  apiFormat?: ApiFormat;
  /** Also answer the rebuilt assistant turn first. */
  includeAssistant?: boolean;
  /** Aborts the batch: `execute` rejects with the signal's reason; host functions see it in ctx. */
  signal?: AbortSignal;
  /** At most this many host calls at once (default: no limit). */
  concurrency?: number;
}

export interface ConversationOptions {
  apiFormat?: ApiFormat;
  mode?: ConversationMode;
  search?: SearchSide;
  /** Deferred tools already loaded (restores a saved conversation). */
  loaded?: string[];
  strict?: boolean;
  deferThresholdTokens?: number;
  summaryMaxTokens?: number | null;
  discovery?: DiscoveryOptions;
  topK?: number;
  maxTokens?: number;
  namespaces?: string[];
  tags?: string[];
}

export interface ConversationTools {
  /** The exact `tools` array to send, in the conversation's provider format. */
  tools: Record<string, unknown>[];
  /** Text to add to the system prompt (`""` when none). */
  systemText: string;
  /** SHA-256 of tools and system text: changes exactly when the prompt cache would break. */
  fingerprint: string;
}

/** Drops undefined fields: the library refuses nothing it is not sent. */
export function defined(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (v !== undefined) out[k] = v;
  return out;
}

export function names(what: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new TypeError(`${what} must be an array of strings`);
  return value as string[];
}

export function discoveryDoc(o: DiscoveryOptions | undefined): Record<string, unknown> {
  if (o === undefined) return {};
  if (o === null || typeof o !== "object") throw new TypeError("discovery options must be an object");
  return defined({
    profile: o.profile,
    field_weights: o.fieldWeights,
    min_score_ratio: o.minScoreRatio,
    max_df_ratio: o.maxDfRatio,
    k1: o.k1,
    b: o.b,
    delta: o.delta,
    intents: o.intents,
    usage: o.usage,
    call_deferred: o.callDeferred,
  });
}

export function discoverDoc(o: DiscoverOptions): Record<string, unknown> {
  if (o === null || typeof o !== "object") throw new TypeError("discover options must be an object");
  return defined({
    top_k: o.topK,
    api_format: o.apiFormat,
    strict: o.strict,
    max_tokens: o.maxTokens,
    namespaces: names("namespaces", o.namespaces),
    tags: names("tags", o.tags),
    deferred: o.deferred,
    query_vector: o.queryVector === undefined ? undefined : Array.from(o.queryVector),
  });
}
