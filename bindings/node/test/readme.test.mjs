// The Node quickstart of the top-level README.md, run as a new user would paste it: it registers
// async tools, finds the deferred one by search, and runs a reply's calls concurrently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "./corpus.mjs";

test("README's Node quickstart runs and answers as its comments say", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quickstart: Node"));
  const code = section.match(/```js\n([\s\S]*?)```/)[1];
  assert.ok(code.split("\n").length <= 20, "the quickstart stays short");
  const file = join(dirname(fileURLToPath(import.meta.url)), "readme-quickstart.tmp.mjs");
  writeFileSync(file, code);
  try {
    const out = execFileSync(process.execPath, [file], { encoding: "utf8" });
    assert.match(out, /name: 'send_email'/);
    assert.match(out, /content: 'sunny in Paris'/);
    assert.match(out, /content: 'sent to bob'/);
  } finally {
    rmSync(file, { force: true });
  }
});
