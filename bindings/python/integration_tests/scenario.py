"""The registry every framework test drives: one core tool, 50 deferred ones (among them
``convert_currency``, an ``async def`` tool and one that fails), host functions that record
their calls, and the scripted model's steps the tests share."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, Tuple

import toolregistry_rs as tr

CORE = "get_time"
CURRENCY = "convert_currency"
ASYNC_TOOL = "fetch_weather"
FAILING = "explode_reactor"
QUERY = "convert currency"
#: Two needs in one query: the registry answers each (its intents), best first.
TWO_NEEDS = "convert 100 dollars to euros and then tell me the weather in Paris"
CURRENCY_ARGS = {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}

# 47 more deferred tools, far from money and weather.
_OTHERS = [
    ("send_email", "Send an email message to a recipient."),
    ("read_file", "Read a text file from disk."),
    ("write_file", "Write text to a file on disk."),
    ("list_directory", "List the entries of a directory."),
    ("create_calendar_event", "Create an event in the user's calendar."),
    ("delete_calendar_event", "Delete an event from the calendar."),
    ("search_web", "Search the web for pages matching a query."),
    ("translate_text", "Translate text between human languages."),
    ("resize_image", "Resize an image to new dimensions."),
    ("crop_image", "Crop an image to a rectangle."),
    ("compress_archive", "Compress files into a zip archive."),
    ("extract_archive", "Extract a zip or tar archive."),
    ("run_sql_query", "Run a SQL query against the database."),
    ("create_github_issue", "Open an issue in a GitHub repository."),
    ("merge_pull_request", "Merge a pull request on GitHub."),
    ("post_slack_message", "Post a message to a Slack channel."),
    ("schedule_meeting", "Schedule a meeting with attendees."),
    ("book_flight", "Book a flight between two airports."),
    ("book_hotel", "Book a hotel room for given dates."),
    ("get_stock_quote", "Latest stock quote for a ticker symbol."),
    ("play_music", "Play a song or playlist."),
    ("set_alarm", "Set an alarm clock for a time."),
    ("start_timer", "Start a countdown timer."),
    ("take_note", "Save a short note."),
    ("search_notes", "Search saved notes by keyword."),
    ("create_todo", "Add an item to the to-do list."),
    ("complete_todo", "Mark a to-do item done."),
    ("get_directions", "Driving directions between two places."),
    ("find_restaurant", "Find restaurants near a location."),
    ("order_food", "Order food for delivery."),
    ("track_package", "Track a parcel by its tracking number."),
    ("generate_password", "Generate a random password."),
    ("hash_text", "Compute a SHA-256 hash of text."),
    ("encode_base64", "Encode bytes as base64."),
    ("decode_base64", "Decode base64 text."),
    ("parse_csv", "Parse CSV text into rows."),
    ("render_chart", "Render a chart from data points."),
    ("summarize_text", "Summarize a long text."),
    ("spell_check", "Check the spelling of text."),
    ("count_words", "Count the words in a text."),
    ("lookup_dictionary", "Look up a word's definition."),
    ("create_invoice", "Create an invoice for a customer."),
    ("restart_server", "Restart a server process."),
    ("check_disk_usage", "Report disk usage of a machine."),
    ("ping_host", "Ping a network host."),
    ("rotate_logs", "Rotate and compress log files."),
    ("backup_database", "Back up the database to storage."),
]


def _tool(name: str, description: str, params: Dict[str, Any], required: List[str], defer: bool = True) -> Dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": params, "required": required},
        "metadata": {"defer": defer},
    }


class Scenario:
    """A registry with the tools above and the record of every host call."""

    def __init__(self) -> None:
        self.calls: List[Tuple[str, Dict[str, Any]]] = []
        self.registry = tr.Registry()
        r = self.registry

        def get_time(timezone: str = "UTC") -> str:
            self.calls.append((CORE, {"timezone": timezone}))
            return f"12:00 {timezone}"

        def convert_currency(amount: float, from_currency: str, to_currency: str) -> Dict[str, Any]:
            self.calls.append((CURRENCY, {"amount": amount, "from_currency": from_currency, "to_currency": to_currency}))
            return {"amount": amount * 0.9, "currency": to_currency}

        async def fetch_weather(city: str) -> str:
            await asyncio.sleep(0)
            self.calls.append((ASYNC_TOOL, {"city": city}))
            return f"Sunny in {city}"

        def explode_reactor(level: int) -> str:
            self.calls.append((FAILING, {"level": level}))
            raise RuntimeError("reactor offline")

        r.register_function(
            _tool(CORE, "Current time in a timezone.", {"timezone": {"type": "string"}}, [], defer=False), get_time
        )
        r.register_function(
            _tool(
                CURRENCY,
                "Convert an amount of money from one currency to another at today's exchange rate.",
                {
                    "amount": {"type": "number", "description": "How much money."},
                    "from_currency": {"type": "string", "description": "ISO code to convert from."},
                    "to_currency": {"type": "string", "description": "ISO code to convert to."},
                },
                ["amount", "from_currency", "to_currency"],
            ),
            convert_currency,
        )
        r.register_function(
            _tool(ASYNC_TOOL, "Weather forecast for a city.", {"city": {"type": "string"}}, ["city"]), fetch_weather
        )
        r.register_function(
            _tool(FAILING, "Shut down the reactor at a safety level.", {"level": {"type": "integer"}}, ["level"]),
            explode_reactor,
        )
        for name, description in _OTHERS:
            r.register(_tool(name, description, {"input": {"type": "string"}}, []))
        self.deferred = {CURRENCY, ASYNC_TOOL, FAILING} | {n for n, _ in _OTHERS}
        assert len(self.deferred) == 50

    def expected(self, query: str, top_k: int = 5) -> List[str]:
        """What the registry's own discover answers for ``query`` (its default ranking)."""
        with self.registry.discoverer() as d:
            hits = [h["name"] for h in d.discover(query, top_k=top_k + 2)]
        return [n for n in hits if n not in ("discover_tools", "call_deferred")][:top_k]

    def close(self) -> None:
        self.registry.close()


def hit_names(answer: Any) -> List[str]:
    """The names in a search tool's answer, whatever shape the framework hands it back in."""
    if isinstance(answer, (bytes, str)):
        try:
            answer = json.loads(answer)
        except ValueError:
            return []
    if isinstance(answer, dict):
        answer = answer.get("tools") or answer.get("discovered_tools") or []
    return [h["name"] if isinstance(h, dict) else str(h) for h in answer]
