"""Shared fixtures: the golden-vector directory and a small registry."""

import os
from pathlib import Path

import pytest

import toolregistry_rs as tr

#: ../shared/golden beside the repository (bindings/python/tests -> ../../../../shared/golden),
#: or TOOLREGISTRY_GOLDEN_DIR.
GOLDEN_DIR = Path(
    os.environ.get("TOOLREGISTRY_GOLDEN_DIR") or Path(__file__).resolve().parents[4] / "shared" / "golden"
)

SAMPLE_TOOLS = [
    {
        "name": "send_email",
        "description": "Send an email to a recipient.",
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
        },
        "metadata": {"defer": True, "tags": ["network"], "search_hint": "mail smtp message"},
    },
    {
        "name": "read_file",
        "description": "Read a file from disk. Returns its text.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        "metadata": {"tags": ["file_system", "read_only"]},
    },
    {
        "name": "write_file",
        "description": "Write text to a file on disk.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
        },
        "metadata": {"defer": True, "tags": ["file_system", "destructive"]},
    },
    {
        "name": "create_issue",
        "namespace": "github",
        "description": "Create a GitHub issue.",
        "metadata": {"defer": True},
    },
    {"name": "list_issues", "namespace": "github", "description": "List the issues of a repository."},
]


@pytest.fixture
def registry():
    with tr.Registry() as r:
        r.register(SAMPLE_TOOLS)
        yield r


@pytest.fixture
def discoverer(registry):
    with registry.discoverer(profile="reference") as d:
        yield d
