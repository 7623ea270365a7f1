package dev.toolregistry;

import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;

/** UTF-8 in both directions across the boundary. */
final class Utf8 {
    private Utf8() {}

    /**
     * The NUL-terminated UTF-8 bytes of {@code s}; {@code null} stays {@code null} (NULL: the
     * library's default where it allows one). A NUL character (C would cut the string there) or a
     * lone surrogate (not Unicode) is refused rather than silently changed.
     */
    static byte[] encode(String s, String what) {
        if (s == null) {
            return null;
        }
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == 0) {
                throw new ToolRegistryException(Status.INVALID_ARGUMENT, what + " contains a NUL character at offset " + i);
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    throw new ToolRegistryException(Status.INVALID_UTF8, what + " is not valid Unicode (a lone surrogate at offset " + i + ")");
                }
            }
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[utf8.length + 1];
        System.arraycopy(utf8, 0, out, 0, utf8.length);
        return out;
    }

    /** Like {@link #encode} but refuses {@code null} with a {@link NullPointerException}. */
    static byte[] required(String s, String what) {
        if (s == null) {
            throw new NullPointerException(what + " is null");
        }
        return encode(s, what);
    }

    /** Copies a NUL-terminated UTF-8 string the caller does not own (static or borrowed). */
    static String copy(Pointer p) {
        return p == null ? null : p.getString(0, "UTF-8");
    }

    /** Copies a library-owned string and frees it with {@code tr_string_free}. */
    static String take(Pointer p) {
        if (p == null) {
            return null;
        }
        try {
            return copy(p);
        } finally {
            NativeLib.tr_string_free(p);
        }
    }

    /** The text with NULs and lone surrogates (which C cannot take) replaced by U+FFFD. */
    static String sanitize(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            boolean pair = Character.isHighSurrogate(chars[i]) && i + 1 < chars.length && Character.isLowSurrogate(chars[i + 1]);
            if (pair) {
                i++;
            } else if (chars[i] == 0 || Character.isSurrogate(chars[i])) {
                chars[i] = '\uFFFD';
            }
        }
        return new String(chars);
    }
}
