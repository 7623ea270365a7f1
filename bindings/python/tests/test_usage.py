"""Usage through the binding (issue 52): ``record_usage`` teaches the registry a habit and a
discover brings the partner in with ``brought_in``; what does not count; bad input raises and
records nothing; the usage file keeps the counts across a restart (in pytest's temporary folder)."""

import pytest

import toolregistry_rs as tr

QUERY = "add an agenda item for tomorrow"
REASON = "used with `add_agenda` in 12 of its 15 tasks"

#: The catalog of tests/it/usage.rs: an agenda tool whose tasks mostly start with a login step.
TOOLS = [
    {"name": "add_agenda", "description": "Add an agenda item to the user's schedule."},
    {"name": "get_user_token", "description": "Get the user token by username and password."},
    {"name": "list_files", "description": "List the files of a folder."},
    {"name": "send_email", "description": "Send an email message."},
] + [
    {"name": f"agenda_tool_{i}", "description": f"Agenda item helper number {i}: works on an agenda item."}
    for i in range(8)
]


def new_registry(**options):
    r = tr.Registry(**options)
    r.register(TOOLS)
    return r


def login_habit(r):
    for names, times in ((["add_agenda", "get_user_token"], 12), (["add_agenda"], 3), (["list_files"], 10)):
        for _ in range(times):
            assert r.record_usage(names) == len(names)


def brought_in(r, **options):
    hits = r.discoverer(**options).discover(QUERY, top_k=10)
    return [(h["name"], h["brought_in"]) for h in hits if "brought_in" in h]


def test_a_recorded_habit_brings_the_partner_in():
    with new_registry() as r:
        assert brought_in(r) == []
        login_habit(r)
        assert brought_in(r) == [("get_user_token", REASON)]
        assert brought_in(r, usage=False) == []
        status = r.usage_status()
        assert (status["tasks"], status["tools"], status["recording"], status["path"]) == (25, 3, False, None)
        assert status["memory_bytes"] > 0
        # The built-in discover_tools brings it in too.
        r.enable_discovery()
        hits = r.call("discover_tools", {"query": QUERY, "top_k": 10})
        assert [(h["name"], h["brought_in"]) for h in hits if "brought_in" in h] == [("get_user_token", REASON)]


def test_what_does_not_count_and_bad_input():
    with new_registry() as r:
        assert r.record_usage([]) == 0
        assert r.record_usage(["no_such_tool", ""]) == 0
        assert r.record_usage(["add_agenda", "add_agenda", "nope"]) == 1
        with pytest.raises(tr.ToolRegistryError) as e:
            r.record_usage(["add_agenda", 7])
        assert e.value.status == tr.Status.INVALID_ARGUMENT
        assert "usage[1]: expected a string, got a number" in e.value.message
        with pytest.raises(TypeError):
            r.record_usage("add_agenda")
        with pytest.raises(tr.ToolRegistryError) as e:
            r.record_usage(["add_agenda", "\udc80"])
        assert e.value.status == tr.Status.INVALID_UTF8
        assert r.usage_status()["tasks"] == 1


def test_the_usage_file_keeps_the_counts_across_a_restart(tmp_path):
    path = tmp_path / "usage.json"
    with new_registry() as r:
        r.enable_usage(path)
        login_habit(r)
        r.save_usage()
        assert r.usage_status()["path"] == str(path)
        assert r.usage_status()["recording"] is True
    with new_registry(usage={"path": str(path)}) as again:
        assert again.usage_status()["tasks"] == 25
        assert brought_in(again) == [("get_user_token", REASON)]
    path.write_bytes(b"\xff not a usage file")
    with new_registry(usage={"path": str(path)}) as corrupt:
        status = corrupt.usage_status()
        assert status["tasks"] == 0
        assert "ignored the usage file" in status["warning"]
