"""The registry inside Python agent frameworks, one module a framework.

Each module imports its framework, so importing :mod:`toolregistry_rs` (or this package) never
does; install the framework with the wheel's extra of the same name:

========================================  ================================  =========================
module                                    entry                             extra
========================================  ================================  =========================
``toolregistry_rs.integrations.pydantic_ai``    ``RegistryToolset``             ``[pydantic-ai]``
``toolregistry_rs.integrations.langchain``      ``ToolSearchMiddleware``        ``[langchain]``
``toolregistry_rs.integrations.openai_agents``  ``RegistryTools``               ``[openai-agents]``
``toolregistry_rs.integrations.google_adk``     ``RegistryToolset``             ``[google-adk]``
========================================  ================================  =========================

In all of them the model sees the registry's non-deferred tools plus a search tool answered by
the registry's discover (hybrid when the registry has an embedder, per need when the query holds
several); the deferred tools a search finds join the next model call; a deferred tool the model
calls by name without searching runs (as ``call_deferred`` allows); every call runs through
``Registry.execute`` / ``aexecute`` (schema check, the host functions, sync or ``async def``), and
a bad call comes back as the error result the model reads, never as an exception.
"""
