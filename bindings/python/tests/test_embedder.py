"""The host-embedder contract, with the deterministic fake embedder every binding's tests share.

The fake (dim 64): split the text on non-alphanumeric ASCII, lowercase each word, FNV-1a 32-bit
hash of its UTF-8 bytes, add 1.0 at hash % 64; an all-zero vector becomes [1, 0, ...]. "zzfs"
shares its bucket with "sprocket" and no other word of the catalog, so only the vectors link
the query to ``beta_gadget``.
"""

import gc
import re
import threading
import time
from typing import List, Sequence

import pytest

import toolregistry_rs as tr

DIM = 64
CATALOG = [
    {"name": "alpha_widget", "description": "Frobnicate the gizmo."},
    {"name": "beta_gadget", "description": "Polish the sprocket."},
    {"name": "gamma_thing", "description": "Paint the fence."},
]
#: No word in common with the catalog; its fake vector is the one of "sprocket".
QUERY = "zzfs"


def fnv1a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def fake_vector(text: str) -> List[float]:
    v = [0.0] * DIM
    for word in re.split(r"[^A-Za-z0-9]+", text):
        if word:
            v[fnv1a(word.lower().encode()) % DIM] += 1.0
    if not any(v):
        v[0] = 1.0
    return v


def fake_embed(texts: List[str]) -> List[List[float]]:
    return [fake_vector(t) for t in texts]


def test_fake_embedder_links_the_query_only_by_its_bucket() -> None:
    assert fnv1a(b"sprocket") % DIM == fnv1a(QUERY.encode()) % DIM
    assert fnv1a(b"") == 0x811C9DC5 and fnv1a(b"a") == 0xE40C292C


def registry() -> tr.Registry:
    r = tr.Registry()
    r.register(CATALOG)
    return r


def test_hybrid_finds_by_vector_on_the_right_threads() -> None:
    threads: List[int] = []
    texts: List[str] = []

    def embed(batch: List[str]) -> List[List[float]]:
        threads.append(threading.get_ident())
        texts.extend(batch)
        return fake_embed(batch)

    with registry() as r:
        with r.discoverer(profile="enhanced") as d:
            assert d.discover(QUERY) == []
        r.set_embedder(embed, DIM)
        assert r.wait_embeddings(10)
        # The catalog: on the registry's embedding thread, never the caller's.
        assert threads and threading.get_ident() not in threads
        assert any("sprocket" in t for t in texts)
        status = r.embedding_status()
        assert status is not None
        assert (status["dim"], status["ready"], status["pending"], status["failed"]) == (DIM, 3, 0, 0)
        assert status["embedder"] == "host:64"
        assert {t["name"]: t["embedding"] for t in r.tools_status()} == {
            "alpha_widget": "ready",
            "beta_gadget": "ready",
            "gamma_thing": "ready",
        }
        threads.clear()
        # No profile named: a registry with an embedder ranks with hybrid.
        with r.discoverer() as d:
            hits = d.discover(QUERY)
            assert hits[0]["name"] == "beta_gadget"
            # The query: on the discovering thread.
            assert threads == [threading.get_ident()]
            why = d.explain(QUERY, "beta_gadget")
            assert why["profile"] == "hybrid"
            h = why["hybrid"]
            assert h is not None and h["embedded"] and h["lexical_score"] is None
            assert h["cosine"] is not None and h["cosine"] > 0.4 and h["fused_rank"] == 1
        with r.discoverer(profile="enhanced") as d:
            assert d.explain(QUERY, "beta_gadget")["hybrid"] is None


def test_hybrid_without_an_embedder_is_an_invalid_argument() -> None:
    with registry() as r:
        with pytest.raises(tr.ToolRegistryError) as e:
            r.discoverer(profile="hybrid").discover("x")
        assert e.value.status == tr.Status.INVALID_ARGUMENT
        assert r.embedding_status() is None
        assert r.wait_embeddings(0)
        assert "embedding" not in r.tools_status()[0]


def test_the_embedder_may_call_back_into_the_registry() -> None:
    seen: List[int] = []
    with registry() as r:

        def embed(batch: List[str]) -> List[List[float]]:
            seen.append(len(r.tools_status()))
            return fake_embed(batch)

        r.set_embedder(embed, DIM)
        assert r.wait_embeddings(10)
        assert r.discoverer().discover(QUERY)[0]["name"] == "beta_gadget"
        assert seen and all(n == 3 for n in seen)


@pytest.mark.parametrize(
    "bad, message",
    [
        (lambda batch: 1 / 0, "ZeroDivisionError"),
        (lambda batch: [[1.0] * DIM], "vectors for"),  # too few vectors (3 texts)
        (lambda batch: [[1.0] * (DIM - 1) for _ in batch], "expected 64"),
        (lambda batch: [["x"] * DIM for _ in batch], "ValueError"),
        (lambda batch: [[float("nan")] * DIM for _ in batch], ""),
    ],
)
def test_a_failing_embedder_fails_its_batch_only(bad: object, message: str) -> None:
    with registry() as r:
        r.set_embedder(bad, DIM)  # type: ignore[arg-type]
        assert r.wait_embeddings(10)
        status = r.embedding_status()
        assert status is not None
        assert (status["ready"], status["pending"], status["failed"]) == (0, 0, 3)
        assert status["warnings"] and message in " ".join(status["warnings"])
        assert {t["embedding"] for t in r.tools_status()} == {"failed"}
        # Still found by words; a failed query falls back to them.
        assert r.discoverer().discover("sprocket")[0]["name"] == "beta_gadget"
        assert r.discoverer().discover("polish sprocket", top_k=1)[0]["name"] == "beta_gadget"


def test_the_embedder_is_dropped_once_when_replaced_and_when_the_registry_is_freed() -> None:
    freed: List[str] = []

    class Embedder:
        def __init__(self, name: str) -> None:
            self.name = name

        def __call__(self, batch: List[str]) -> Sequence[Sequence[float]]:
            return fake_embed(batch)

        def __del__(self) -> None:
            freed.append(self.name)

    def settled(n: int) -> List[str]:
        # The library lets go of an embedder once no call of it runs, possibly on its embedding
        # thread a moment after the call that replaced or freed it returns.
        deadline = time.monotonic() + 10
        while len(freed) < n and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)
        gc.collect()
        return list(freed)

    r = registry()
    r.set_embedder(Embedder("first"), DIM)
    r.set_embedder(Embedder("second"), DIM)
    assert r.wait_embeddings(10)
    assert settled(1) == ["first"]
    r.close()
    assert settled(2) == ["first", "second"]


def test_bad_embedder_arguments() -> None:
    with registry() as r:
        with pytest.raises(TypeError):
            r.set_embedder(42, DIM)  # type: ignore[arg-type]
        for dim in (0, 9000):
            with pytest.raises(tr.ToolRegistryError) as e:
                r.set_embedder(fake_embed, dim)
            assert e.value.status == tr.Status.INVALID_ARGUMENT
        assert r.embedding_status() is None
    with pytest.raises(tr.ToolRegistryError) as e:
        tr.Registry(embedding={"model_dir": "/nonexistent/model"})
    with pytest.raises(tr.ToolRegistryError) as e:
        tr.Registry(embedding={"bogus": 1})
    assert e.value.status == tr.Status.INVALID_ARGUMENT
