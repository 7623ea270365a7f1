package dev.toolregistry;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Runs the execute corpus through the Java binding and prints {@code provider/case<TAB>messages}
 * per case (scripts/cross_language.py compares the bytes with every other language).
 * Usage: CrossExecute [CORPUS] [--steps] (--steps: executeAsync, the two steps, with async hosts).
 */
public final class CrossExecute {
    private CrossExecute() {}

    public static void main(String[] args) throws Exception {
        Path corpus = args.length > 0 && !args[0].equals("--steps") ? Paths.get(args[0]) : Corpus.execute();
        boolean steps = java.util.Arrays.asList(args).contains("--steps");
        StringBuilder out = new StringBuilder();
        try (Registry r = Corpus.fixtureRegistry(corpus, steps)) {
            for (String name : Corpus.executeCases(corpus)) {
                out.append(name).append('\t').append(Corpus.runExecuteCase(r, corpus, name, steps)).append('\n');
            }
        }
        Cross.print(out);
    }
}
