package dev.toolregistry;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Runs the conversation corpus through the Java binding and prints
 * {@code case<TAB>messages<TAB>loaded} per case. Usage: CrossConversation [CORPUS] [--steps].
 */
public final class CrossConversation {
    private CrossConversation() {}

    public static void main(String[] args) throws Exception {
        Path corpus = args.length > 0 && !args[0].equals("--steps") ? Paths.get(args[0]) : Corpus.conversation();
        boolean steps = java.util.Arrays.asList(args).contains("--steps");
        StringBuilder out = new StringBuilder();
        for (String name : Corpus.conversationCases(corpus)) {
            String[] r = Corpus.runConversationCase(corpus, name, steps);
            out.append(name).append('\t').append(r[0]).append('\t').append(r[1]).append('\n');
        }
        Cross.print(out);
    }
}
