"""Threads: discovers from many Python threads while another thread changes the registry, and a
close racing calls in flight. The library releases the GIL during each call (ctypes.CDLL)."""

import threading

import pytest

import toolregistry_rs as tr

from conftest import SAMPLE_TOOLS

QUERIES = [
    "send an email",
    "read a file",
    "write text",
    "github issue",
    "list repository issues",
    "read_file",
]


def test_concurrent_discovers_and_changes():
    with tr.Registry() as r:
        r.register(SAMPLE_TOOLS)
        d = r.discoverer(profile="reference")
        # The churner moves the registry between three states; every answer must be one of them.
        expected = {q: [d.discover(q)] for q in QUERIES}
        r.register({"name": "zz_temp_0", "description": "Quantum flux capacitor calibration."})
        for q in QUERIES:
            expected[q].append(d.discover(q))
        r.set_metadata("zz_temp_0", tags=["physics"])
        for q in QUERIES:
            expected[q].append(d.discover(q))
        r.unregister("zz_temp_0")
        assert any(states[0] != states[1] for states in expected.values()), "the states differ in scores"
        errors = []
        stop = threading.Event()

        def searcher(k):
            try:
                for i in range(400):
                    q = QUERIES[(i + k) % len(QUERIES)]
                    got = d.discover(q)
                    if got not in expected[q]:
                        errors.append((q, got))
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        def churner():
            i = 0
            while not stop.is_set():
                name = f"zz_temp_{i % 7}"
                r.register({"name": name, "description": "Quantum flux capacitor calibration."})
                r.set_metadata(name, tags=["physics"])
                r.unregister(name)
                i += 1

        churn = threading.Thread(target=churner)
        churn.start()
        threads = [threading.Thread(target=searcher, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop.set()
        churn.join()
        d.close()
        assert not errors, errors[:3]


def close_during_searches():
    """Four threads search while the main thread closes the discoverer and the registry."""
    r = tr.Registry()
    r.register(SAMPLE_TOOLS)
    d = r.discoverer()
    outcomes = {"ok": 0, "closed": 0}
    lock = threading.Lock()
    failures = []
    started = threading.Barrier(5)

    def searcher():
        started.wait()
        for _ in range(200):
            try:
                d.discover("send an email")
                kind = "ok"
            except ValueError:
                kind = "closed"
            except Exception as e:  # pragma: no cover
                failures.append(e)
                return
            with lock:
                outcomes[kind] += 1

    threads = [threading.Thread(target=searcher) for _ in range(4)]
    for t in threads:
        t.start()
    started.wait()
    d.close()
    r.close()
    for t in threads:
        t.join()
    assert not failures
    assert outcomes["ok"] + outcomes["closed"] == 800
    assert d.closed


def test_close_waits_for_calls_in_flight():
    """Closing while other threads search: each call either completes or raises ValueError."""
    for _ in range(5):
        close_during_searches()


@pytest.mark.parametrize("n", [8])
def test_registries_in_parallel(n):
    """Separate registries in separate threads do not share state."""
    results = [None] * n

    def work(k):
        with tr.Registry() as r:
            r.register({"name": f"tool_{k}", "description": f"Unique word w{k}x."})
            with r.discoverer() as d:
                results[k] = [h["name"] for h in d.discover(f"w{k}x")]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [[f"tool_{k}"] for k in range(n)]
