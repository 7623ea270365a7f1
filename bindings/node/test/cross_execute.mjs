// Runs the execute corpus through the Node binding; prints `provider/case<TAB>messages` per case
// (scripts/cross_language.py compares the bytes with every other language).
import { EXECUTE, executeCases, fixtureRegistry, runExecuteCase } from "./corpus.mjs";

const corpus = process.argv[2] ?? EXECUTE;
const r = fixtureRegistry(corpus);
for (const name of executeCases(corpus)) {
  process.stdout.write(`${name}\t${await runExecuteCase(r, corpus, name)}\n`);
}
r.close();
