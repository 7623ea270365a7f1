"""Importing the package (and its integrations package) never imports a framework; in a
virtualenv without one, an adapter module says which extra to install."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

FRAMEWORKS = {
    "pydantic_ai": ("toolregistry_rs.integrations.pydantic_ai", "pydantic-ai"),
    "langchain": ("toolregistry_rs.integrations.langchain", "langchain"),
    "agents": ("toolregistry_rs.integrations.openai_agents", "openai-agents"),
    "google.adk": ("toolregistry_rs.integrations.google_adk", "google-adk"),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # google.adk without google
        return False


def test_import_loads_no_framework():
    code = (
        "import sys, toolregistry_rs, toolregistry_rs.integrations, toolregistry_rs.integrations._core\n"
        "with toolregistry_rs.Registry() as r: r.register({'name': 'x', 'description': 'y'})\n"
        f"print(sorted(m for m in {sorted(FRAMEWORKS)!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "[]", out


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_adapter_without_its_framework_names_the_extra(framework):
    if _installed(framework):
        pytest.skip(f"{framework} is installed here")
    module, extra = FRAMEWORKS[framework]
    code = f"import {module}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.returncode != 0
    assert f"toolregistry_rs[{extra}]" in out.stderr, out.stderr
