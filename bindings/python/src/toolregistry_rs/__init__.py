"""toolregistry_rs: the toolregistry-rs engine (tool registry + BM25F tool discovery) for Python.

A thin binding over the library's C ABI (``libtoolregistry.so``, shipped inside this package)::

    import toolregistry_rs as tr

    with tr.Registry() as registry:
        registry.register([
            {"name": "send_email", "description": "Send an email.", "metadata": {"defer": True}},
            {"name": "read_file", "description": "Read a file from disk."},
        ])
        with registry.discoverer(profile="reference") as d:
            for hit in d.discover("email someone", top_k=5):
                print(hit["name"], hit["score"])

:mod:`toolregistry_rs.compat` offers the Python reference ``toolregistry``'s core API
(``ToolRegistry``, ``Tool``, ``ToolMetadata``, ``ToolDiscoveryTool``, ``llm.tool_calls``) on top
of this engine.
"""

from ._errors import Status, ToolRegistryError
from ._host import ToolError
from ._conversation import Conversation, ConversationTools
from ._discoverer import Discoverer
from ._registry import Registry, status_name, version
from ._types import (
    APIFormat,
    ConversationMode,
    DiscoverResult,
    EmbeddingState,
    EmbeddingStatus,
    Explanation,
    HybridExplanation,
    IntentExplanation,
    Profile,
    SchemaWarning,
    SearchSide,
    StrictSchemas,
    Summary,
    UsageStatus,
)

__all__ = [
    "APIFormat",
    "Conversation",
    "ConversationMode",
    "ConversationTools",
    "DiscoverResult",
    "Discoverer",
    "EmbeddingState",
    "EmbeddingStatus",
    "Explanation",
    "HybridExplanation",
    "IntentExplanation",
    "Profile",
    "Registry",
    "SchemaWarning",
    "SearchSide",
    "Status",
    "StrictSchemas",
    "Summary",
    "UsageStatus",
    "ToolError",
    "ToolRegistryError",
    "status_name",
    "version",
]

__version__ = version()
