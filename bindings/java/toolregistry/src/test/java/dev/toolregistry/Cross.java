package dev.toolregistry;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The cross-language programs' shared parts: UTF-8 output, the fake embedder every language
 * implements alike, and the hits written back as JSON from the typed {@link Hit}s.
 */
final class Cross {
    private Cross() {}

    static void print(CharSequence s) {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        out.print(s);
        out.flush();
    }

    /**
     * tests/cross/discover.c's fake embedder: dim 64; words split on non-alphanumeric ASCII,
     * lowercased, FNV-1a 32-bit, 1.0 added at hash % 64; no word: [1, 0, ...].
     */
    static float[][] fakeEmbed(List<String> texts) {
        float[][] out = new float[texts.size()][];
        for (int t = 0; t < texts.size(); t++) {
            float[] v = new float[64];
            byte[] bytes = texts.get(t).getBytes(StandardCharsets.UTF_8);
            int h = 0x811c9dc5;
            boolean inWord = false;
            boolean any = false;
            for (int i = 0; i <= bytes.length; i++) {
                int c = i < bytes.length ? bytes[i] & 0xff : 0;
                boolean alnum = c < 128 && Character.isLetterOrDigit(c) && c != 0;
                if (alnum) {
                    h = (h ^ Character.toLowerCase(c)) * 0x01000193;
                    inWord = true;
                    continue;
                }
                if (inWord) {
                    v[(int) (Integer.toUnsignedLong(h) % 64)] += 1.0f;
                    any = true;
                    inWord = false;
                    h = 0x811c9dc5;
                }
            }
            if (!any) {
                v[0] = 1.0f;
            }
            out[t] = v;
        }
        return out;
    }

    /** The hits as JSON, from the typed records (so the check covers the binding's decoding). */
    static String hitsJson(List<Hit> hits) {
        List<Object> out = new ArrayList<>();
        for (Hit h : hits) {
            Json.Obj o = new Json.Obj().put("name", h.name()).put("description", h.description()).put("score", h.score());
            o.map().put("namespace", h.namespace());
            o.put("deferred", h.deferred()).put("intent", h.intent()).put("brought_in", h.broughtIn())
                    .put("schema", h.schemaJson() == null ? null : new Json.Raw(h.schemaJson()))
                    .put("warning", h.warning());
            out.add(o.map());
        }
        return Json.write(out);
    }

    static String readCatalog(String path) throws java.io.IOException {
        return Files.readString(Paths.get(path), StandardCharsets.UTF_8);
    }
}
