"""Typed shapes of the JSON the library returns. All are plain dicts at run time."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

#: The provider formats schemas are rendered in (default ``"openai-chat"``).
APIFormat = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]

#: How a :class:`Conversation` chooses each request's tools (default ``"summaries"``).
ConversationMode = Literal["summaries", "stable", "native", "auto"]

#: Who runs a ``native`` conversation's searches (default ``"client"``).
SearchSide = Literal["client", "server"]

#: The ranking profiles: ``"reference"`` reproduces toolregistry 0.19.0 bit for bit; ``"hybrid"``
#: fuses ``"enhanced"`` with the registry's embedder (the default on a registry that has one).
Profile = Literal["reference", "enhanced", "hybrid"]

#: A tool's vector in ``Registry.tools_status()`` entries (the ``"embedding"`` key, present when
#: the registry has an embedder).
EmbeddingState = Literal["ready", "pending", "failed", "none"]


class EmbeddingStatus(TypedDict):
    """``Registry.embedding_status()``: what the registry's embedder has done."""

    #: The embedder's identity (``"host:<dim>"`` unless set).
    embedder: str
    dim: int
    #: Enabled tools with their vector.
    ready: int
    #: Enabled tools waiting for theirs.
    pending: int
    #: Tools the embedder failed on: found by words until their text changes.
    failed: int
    #: Vectors computed since the embedder was set (the others came from the cache).
    embedded: int
    #: The last warnings: a cache file ignored, a batch that failed.
    warnings: List[str]


class UsageStatus(TypedDict):
    """``Registry.usage_status()``: what the registry's usage (co-use) holds."""

    #: The calls the library runs are recorded (``Registry.enable_usage``).
    recording: bool
    #: The usage file, if any.
    path: Optional[str]
    #: Tasks recorded, loaded ones included.
    tasks: int
    #: Tools with counts.
    tools: int
    #: Bytes the counts take in memory, about.
    memory_bytes: int
    #: Why the file was ignored at start (an empty start) or the last write failed.
    warning: Optional[str]


class HybridExplanation(TypedDict):
    """Each side of a ``hybrid`` ranking for the explained tool (None in other profiles)."""

    lexical_score: Optional[float]
    lexical_rank: Optional[int]
    cosine: Optional[float]
    semantic_rank: Optional[int]
    fused_score: Optional[float]
    fused_rank: Optional[int]
    #: What the query's phrases in the tool's text added to its words score, when any.
    phrase_score: Optional[float]
    #: Whether the tool had its vector.
    embedded: bool
    note: Optional[str]


class _DiscoverResultBase(TypedDict):
    name: str
    description: str
    score: float
    namespace: Optional[str]
    deferred: bool


class DiscoverResult(_DiscoverResultBase, total=False):
    """One discovery hit. ``schema`` is present for an exact-name match and for deferred tools;
    ``warning``, when strict mode was asked for and that schema cannot be strict, says why. A hit
    that ``max_tokens`` cut to name + summary has no ``schema`` and only the first sentence of the
    description. ``intent`` is present when the query holds several needs ("convert 100 dollars
    to euros and then tell me the weather in Paris"): the need this tool answers, as the query
    words it (``intents=False`` on the discoverer ranks every query as one need).
    ``brought_in`` is present when the query did not rank the tool there but a hit it is used
    with brought it in: why ("used with `add_agenda` in 12 of its 15 tasks"; see
    ``Registry.record_usage``)."""

    intent: str
    brought_in: str
    schema: Dict[str, Any]
    warning: str


class SchemaWarning(TypedDict):
    """A tool strict mode could not apply to (its schema is sent non-strict), and why."""

    name: str
    reason: str


class StrictSchemas(TypedDict):
    """``Registry.get_schemas(strict=True)``: every tool's schema, strict where it can be, and
    the tools whose schemas are not."""

    tools: List[Dict[str, Any]]
    warnings: List[SchemaWarning]


class Summary(TypedDict):
    """One line about a deferred tool, for a system prompt."""

    name: str
    #: The first sentence of the tool's description.
    description: str
    namespace: Optional[str]


class QueryToken(TypedDict):
    token: str
    df: int
    df_ratio: float
    kept: bool
    reason: Optional[str]


class FieldContribution(TypedDict):
    field: str
    tf: int
    weight: float
    score: float


class TermContribution(TypedDict):
    token: str
    df: int
    #: What the token is scored with: ``catalog_idf``, or less in the enhanced profile for a word
    #: more common in general English than in the catalog (its background model's discount).
    idf: float
    #: The token's inverse document frequency in the catalog alone.
    catalog_idf: float
    weighted_tf: float
    tf_norm: float
    #: 1 unless the token repeats in the query (enhanced profile: each of its n occurrences, one
    #: term each, weighs (k1+1)/(n+k1), together n·(k1+1)/(n+k1)).
    query_weight: float
    score: float
    fields: List[FieldContribution]


class ToolExplanation(TypedDict):
    name: str
    #: ranked, exact_match, other_exact_match, disabled, no_query_tokens, no_common_token,
    #: below_top_k or below_score_floor.
    outcome: str
    reason: str
    indexed: bool
    score: float
    rank: int
    #: The need of the query the tool answers (as a hit's ``intent``), None when the query is one
    #: need or no need's ranking holds the tool.
    intent: Optional[str]
    terms: List[TermContribution]


class IntentExplanation(TypedDict):
    """One need of a query that holds several, and how that need's own ranking placed the
    explained tool."""

    #: The need, as the query words it.
    text: str
    #: The tool's score in the need's ranking over that ranking's best (1 for its best tool);
    #: None when the need's ranking does not hold the tool.
    relative_score: Optional[float]
    #: The tool's 1-based place in the need's ranking, None when it is not there.
    rank: Optional[int]


class Explanation(TypedDict):
    """Why a query ranks a tool where it does; see :meth:`Discoverer.explain`."""

    query: str
    profile: str
    #: Each side of the fusion when ranked with ``hybrid``, else None.
    hybrid: Optional[HybridExplanation]
    #: The query's needs in query order when it holds several (then the tool's score and rank
    #: are the merged ones); empty for a query that is one need.
    intents: List[IntentExplanation]
    exact_match: Optional[str]
    tokens: List[QueryToken]
    scored_tokens: List[str]
    top_k: int
    best_score: float
    score_floor: float
    result_count: int
    tool: ToolExplanation
