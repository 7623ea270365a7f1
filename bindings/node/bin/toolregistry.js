#!/usr/bin/env node
// `toolregistry` from the npm package (`npx toolregistry mcp --config servers.json`): runs the
// native program the package ships in lib/ (built with the gateway, `toolregistry mcp`), as
// esbuild and biome run theirs. The program gets this process's stdin, stdout and stderr
// themselves (an MCP client talks to it directly), the signals this process receives, and its
// exit code or signal becomes this process's own.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const program = path.join(here, "..", "lib", process.platform === "win32" ? "toolregistry.exe" : "toolregistry");
if (!existsSync(program)) {
  console.error(`toolregistry: ${program} is missing; the npm package ships the program for Linux x86_64`);
  process.exit(1);
}

const child = spawn(program, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
// SIGHUP reloads the gateway's config; the others end it. Forwarded, they reach the program even
// when only this process was signalled (a client that kills the process it started).
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
for (const signal of forwarded) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on("error", (error) => {
  console.error(`toolregistry: cannot run ${program}: ${error.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that the caller sees what the program saw.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
