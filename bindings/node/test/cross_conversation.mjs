// Runs the conversation corpus through the Node binding; prints `case<TAB>messages<TAB>loaded`.
import { CONVERSATION, conversationCases, runConversationCase } from "./corpus.mjs";

const corpus = process.argv[2] ?? CONVERSATION;
for (const name of conversationCases(corpus)) {
  const { messages, loaded } = await runConversationCase(corpus, name);
  process.stdout.write(`${name}\t${messages}\t${loaded}\n`);
}
