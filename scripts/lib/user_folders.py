#!/usr/bin/env python3
"""Stand-ins for the user's data and cache folders, for scripts/test.sh.

  user_folders.py seed DIR     fills DIR/data and DIR/cache as a machine where `toolregistry mcp`
                               was run by hand (trust pins for the suite's server names, with
                               definitions the suite's servers do not have) and the CLI ran with a
                               model (vector caches that no longer match anything)
  user_folders.py digest DIR   prints every path under DIR with its type, mode and SHA-256, sorted:
                               two digests are equal when the folders are byte for byte the same
"""
import hashlib
import json
import os
import sys


def pin(name, description):
    definition = {"name": name, "description": description,
                  "inputSchema": {"type": "object", "properties": {"timezone": {"type": "string"}}}}
    # Not the hash of the definition, nor of anything the suite's servers describe: a part that
    # read this file would hold their tools as changed (quarantined) and fail its checks.
    return {"hash": "sha256:" + hashlib.sha256(("stale " + name).encode()).hexdigest(), "definition": definition}


def seed(root):
    data = os.path.join(root, "data", "toolregistry")
    cache = os.path.join(root, "cache", "toolregistry")
    os.makedirs(data, exist_ok=True)
    os.makedirs(cache, exist_ok=True)
    servers = {}
    # The published server the MCP parts run (mcp-server-time), as another timezone described it.
    servers["time"] = {"pinned": {
        "get_current_time": pin("get_current_time", "Get current time in a specific timezones (local: Asia/Tokyo)"),
        "convert_time": pin("convert_time", "Convert time between timezones (local: Asia/Tokyo)"),
    }, "quarantined": {}}
    # The suite's scripted servers by the names its configs give them.
    for server in ("script", "big", "p", "p-q", "remote", "local", "locked", "facts", "a", "b", "s"):
        servers[server] = {"pinned": {"echo": pin("echo", "Echo with a twist.")}, "quarantined": {}}
    with open(os.path.join(data, "mcp-state.json"), "w") as f:
        json.dump({"version": 1, "servers": servers}, f, indent=2)
    # Vector caches the CLI would read by their default names (the embedded catalog, any other).
    for name in ("bfcl-embedded.vectors", "catalog-0123456789abcdef.vectors"):
        with open(os.path.join(cache, name), "wb") as f:
            f.write(b"TRVEC stale: written by an older build for another model\n" + bytes(range(256)) * 8)


def digest(root):
    lines = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            rel = os.path.relpath(path, root)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    sha = hashlib.sha256(f.read()).hexdigest()
                lines.append(f"file {oct(st.st_mode & 0o7777)} {sha} {rel}")
            else:
                lines.append(f"{'link' if os.path.islink(path) else 'dir'} {oct(st.st_mode & 0o7777)} {rel}")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("seed", "digest"):
        sys.exit(__doc__)
    {"seed": seed, "digest": digest}[sys.argv[1]](sys.argv[2])
