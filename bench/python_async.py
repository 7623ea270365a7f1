#!/usr/bin/env python3
"""The Python binding's aexecute: does a batch of async tools run concurrently, and what do the two
steps (prepare, finish) cost beside execute.

1. 8 calls whose ``async def`` functions each ``await asyncio.sleep(0.1)``, through
   ``Registry.aexecute`` inside a running loop: wall time per batch (target: <= 150 ms, where one
   after another would take 800 ms). Beside it, the same 8 calls as plain functions doing
   ``time.sleep(0.1)`` through aexecute (the loop's default thread pool) and through the sync
   ``execute`` (one after another).
2. 8 calls of a trivial function: ``execute`` (tr_registry_execute, one C call) against
   ``aexecute`` with an ``async def`` function (prepare + the calls on the loop + finish) and against
   the two steps called directly (the results made in Python, no asyncio), per batch, interleaved
   in one run.

    cargo build --release --lib
    python3 bench/python_async.py [rounds]

Runs on the source tree (bindings/python/src) with target/release/libtoolregistry.so unless
TOOLREGISTRY_LIB names another library.
"""

import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("TOOLREGISTRY_LIB", str(ROOT / "target" / "release" / "libtoolregistry.so"))
sys.path.insert(0, str(ROOT / "bindings" / "python" / "src"))

import toolregistry_rs as tr  # noqa: E402

TOOL = {"name": "t", "description": "A tool.", "parameters": {"type": "object", "properties": {"i": {"type": "integer"}}}}


def calls(name, n=8):
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps({"i": i})}}
            for i in range(n)
        ],
    }


def ms(xs):
    return f"p50 {statistics.median(xs) * 1e3:.1f} ms, max {max(xs) * 1e3:.1f} ms"


def us(xs):
    return f"p50 {statistics.median(xs) * 1e6:.1f} us, p95 {sorted(xs)[int(len(xs) * 0.95)] * 1e6:.1f} us"


async def main(rounds):
    async def nap(i):
        await asyncio.sleep(0.1)
        return i

    def sleepy(i):
        time.sleep(0.1)
        return i

    async def atrivial(i):
        return i

    with tr.Registry() as r:
        r.register_function({**TOOL, "name": "nap"}, nap)
        r.register_function({**TOOL, "name": "sleepy"}, sleepy)
        r.register_function({**TOOL, "name": "trivial"}, lambda i: i)
        r.register_function({**TOOL, "name": "atrivial"}, atrivial)
        batch = {name: calls(name) for name in ("nap", "sleepy", "trivial", "atrivial")}
        expect = [str(i) for i in range(8)]

        await r.aexecute(batch["nap"])  # warm-up
        naps, sleepies = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            out = await r.aexecute(batch["nap"])
            naps.append(time.perf_counter() - t0)
            assert [m["content"] for m in out] == expect
            t0 = time.perf_counter()
            await r.aexecute(batch["sleepy"])
            sleepies.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await asyncio.to_thread(r.execute, batch["sleepy"])
        sequential = time.perf_counter() - t0

        # Overhead: interleaved, so both see the same machine load.
        sync_cost, async_cost, steps_cost = [], [], []
        trivial_json = json.dumps(batch["trivial"]).encode()

        def two_steps():
            # prepare, the same trivial function called in Python, finish: no asyncio.
            plan = r.prepare_calls_json(trivial_json)
            results = [
                {"id": c["id"], "content": str(c["arguments"]["i"])}
                for c in json.loads(plan)["calls"]
                if c["run"] == "host"
            ]
            return r.finish_calls_json(plan, json.dumps(results).encode())

        assert json.loads(two_steps()) == r.execute(batch["trivial"])
        for _ in range(50):
            r.execute(batch["trivial"])
            await r.aexecute(batch["atrivial"])
            two_steps()
        for _ in range(rounds * 50):
            t0 = time.perf_counter()
            two_steps()
            steps_cost.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r.execute(batch["trivial"])
            sync_cost.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            await r.aexecute(batch["atrivial"])
            async_cost.append(time.perf_counter() - t0)

    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, load average {load}; {rounds} rounds."
    )
    print(f"8 async calls, each awaiting asyncio.sleep(0.1), through aexecute: {ms(naps)}")
    print(f"8 plain calls, each time.sleep(0.1), through aexecute (default thread pool): {ms(sleepies)}")
    print(f"the same 8 plain calls through the sync execute (one after another): {sequential * 1e3:.1f} ms")
    print(f"8 trivial calls, execute (plain function): {us(sync_cost)}")
    print(f"8 trivial calls, aexecute (async def function): {us(async_cost)}")
    print(f"8 trivial calls, prepare_calls + finish_calls with the results made in Python: {us(steps_cost)}")
    print(f"aexecute / execute (p50): {statistics.median(async_cost) / statistics.median(sync_cost):.2f}")
    print(f"prepare + finish / execute (p50): {statistics.median(steps_cost) / statistics.median(sync_cost):.2f}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20))
