package dev.toolregistry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The small JSON reader and writer this package needs to read the library's answers and write
 * its options, so that the jar depends on JNA alone.
 *
 * <p>Values read: {@code null}, {@link Boolean}, {@link String}, {@link Long} (integers that fit),
 * {@link Double} (other numbers), {@link List} and {@link Map} (keys in document order). A key
 * named in {@code rawKeys} keeps its value as {@link Raw} JSON text, unparsed (schemas, arguments).
 * Unknown keys are simply there: readers pick the keys they know and ignore the rest, so a
 * library that adds a field breaks nothing.
 */
final class Json {
    private Json() {}

    /** JSON text kept as is, read or to be written verbatim. */
    record Raw(String text) {
        @Override
        public String toString() {
            return text;
        }
    }

    /** Thrown for text that is not JSON (only the library's own answers are read). */
    static final class ParseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParseException(String message) {
            super(message);
        }
    }

    private static final double[] POW10 = new double[23];

    static {
        double p = 1;
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = p;
            p *= 10;
        }
    }

    static Object parse(String text) {
        return parse(text, Collections.emptySet());
    }

    static Object parse(String text, Set<String> rawKeys) {
        Reader r = new Reader(text, rawKeys);
        r.ws();
        Object v = r.value(false);
        r.ws();
        if (r.pos != text.length()) {
            throw r.error("trailing text");
        }
        return v;
    }

    /** The object at the top of {@code text}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String text, Set<String> rawKeys) {
        Object v = parse(text, rawKeys);
        if (!(v instanceof Map)) {
            throw new ParseException("expected a JSON object");
        }
        return (Map<String, Object>) v;
    }

    /** The array at the top of {@code text}. */
    @SuppressWarnings("unchecked")
    static List<Object> array(String text, Set<String> rawKeys) {
        Object v = parse(text, rawKeys);
        if (!(v instanceof List)) {
            throw new ParseException("expected a JSON array");
        }
        return (List<Object>) v;
    }

    // ---- typed access to parsed values (a missing or null member reads as the default) ----

    static String str(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? null : v instanceof Raw ? ((Raw) v).text() : v.toString();
    }

    static double num(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number ? ((Number) v).doubleValue() : 0.0;
    }

    static Double optNum(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number ? ((Number) v).doubleValue() : null;
    }

    static long integer(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number ? ((Number) v).longValue() : 0L;
    }

    static Integer optInt(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number ? ((Number) v).intValue() : null;
    }

    static boolean bool(Map<String, Object> m, String key) {
        return Boolean.TRUE.equals(m.get(key));
    }

    static Boolean optBool(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Boolean ? (Boolean) v : null;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Map ? (Map<String, Object>) v : null;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> objects(Object v) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (v instanceof List) {
            for (Object o : (List<Object>) v) {
                if (o instanceof Map) {
                    out.add((Map<String, Object>) o);
                }
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Object v) {
        List<String> out = new ArrayList<>();
        if (v instanceof List) {
            for (Object o : (List<Object>) v) {
                out.add(o == null ? null : o.toString());
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** A position in JSON text; also the streaming reader of {@link Hit#parseList}. */
    static final class Reader {
        final String s;
        final Set<String> rawKeys;
        // No backslash anywhere: a string ends at the next quote, found with the JDK's vectorized indexOf.
        final boolean noEscapes;
        int pos;
        int depth;

        Reader(String s, Set<String> rawKeys) {
            this.s = s;
            this.rawKeys = rawKeys;
            this.noEscapes = s.indexOf('\\') < 0;
        }

        /** Skips whitespace, then consumes {@code c} or fails. */
        void expect(char c) {
            ws();
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        /** Skips whitespace, then consumes {@code c} if it is next. */
        boolean consume(char c) {
            ws();
            if (pos < s.length() && s.charAt(pos) == c) {
                pos++;
                return true;
            }
            return false;
        }

        /** A member's value as a string ({@code null} for JSON null; other scalars as their text). */
        String stringOrNull() {
            ws();
            char c = peek();
            if (c == '"') {
                return string();
            }
            Object v = value(false);
            return v == null ? null : v.toString();
        }

        /** A number member (exact: the shortest decimal of a double reads back as that double). */
        double doubleValue() {
            ws();
            int start = pos;
            boolean negative = false;
            long mantissa = 0;
            int digits = 0;
            int scale = 0;
            boolean simple = true;
            if (pos < s.length() && s.charAt(pos) == '-') {
                negative = true;
                pos++;
            }
            boolean fraction = false;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c >= '0' && c <= '9') {
                    if (mantissa != 0 || c != '0') {
                        digits++;
                    }
                    mantissa = mantissa * 10 + (c - '0');
                    if (fraction) {
                        scale++;
                    }
                    if (digits > 16) {
                        simple = false;
                    }
                    pos++;
                } else if (c == '.' && !fraction) {
                    fraction = true;
                    pos++;
                } else if (c == 'e' || c == 'E' || c == '+' || c == '-' || c == '.') {
                    simple = false;
                    pos++;
                } else {
                    break;
                }
            }
            if (start == pos) {
                throw error("expected a number");
            }
            if (simple && scale <= 22 && mantissa <= (1L << 53)) {
                // Clinger's fast path: both exactly representable, one correctly rounded division.
                double d = mantissa / POW10[scale];
                return negative ? -d : d;
            }
            return Double.parseDouble(s.substring(start, pos));
        }

        boolean bool() {
            Object v = value(false);
            return Boolean.TRUE.equals(v);
        }

        /** A value's text as is, or {@code null} for JSON null. */
        String raw() {
            ws();
            if (s.startsWith("null", pos)) {
                pos += 4;
                return null;
            }
            Object v = value(true);
            return v == null ? null : v.toString();
        }

        /** Moves past one value of any kind. */
        void skipValue() {
            ws();
            char c = peek();
            if (c == '{' || c == '[' || c == '"') {
                skip();
            } else {
                value(false);
            }
        }

        /** The next key (after whitespace), and its colon. */
        String key() {
            ws();
            if (peek() != '"') {
                throw error("expected a key");
            }
            String k = string();
            expect(':');
            return k;
        }

        ParseException error(String what) {
            return new ParseException(what + " at offset " + pos);
        }

        void ws() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                    pos++;
                } else {
                    break;
                }
            }
        }

        Object value(boolean raw) {
            if (pos >= s.length()) {
                throw error("unexpected end");
            }
            int start = pos;
            char first = s.charAt(pos);
            if (raw && (first == '{' || first == '[' || first == '"')) {
                skip();
                return new Raw(s.substring(start, pos));
            }
            Object v;
            char c = s.charAt(pos);
            switch (c) {
                case '{':
                    v = object();
                    break;
                case '[':
                    v = array();
                    break;
                case '"':
                    v = string();
                    break;
                case 't':
                    v = literal("true", Boolean.TRUE);
                    break;
                case 'f':
                    v = literal("false", Boolean.FALSE);
                    break;
                case 'n':
                    v = literal("null", null);
                    break;
                default:
                    v = number();
            }
            return raw && v != null ? new Raw(s.substring(start, pos)) : v;
        }

        /** Moves past one object, array or string without building it (a raw member: only its text is kept). */
        void skip() {
            int depth0 = depth;
            int n = s.length();
            do {
                if (pos >= n) {
                    throw error("unexpected end");
                }
                char c = s.charAt(pos++);
                if (c == '"' && noEscapes) {
                    int q = s.indexOf('"', pos);
                    if (q < 0) {
                        throw error("unterminated string");
                    }
                    pos = q + 1;
                } else if (c == '"') {
                    for (;;) {
                        if (pos >= n) {
                            throw error("unterminated string");
                        }
                        char d = s.charAt(pos++);
                        if (d == '"') {
                            break;
                        }
                        if (d == '\\') {
                            pos++;
                        }
                    }
                } else if (c == '{' || c == '[') {
                    if (++depth > 256) {
                        throw error("nested too deeply");
                    }
                } else if (c == '}' || c == ']') {
                    depth--;
                }
            } while (depth > depth0);
        }

        Object literal(String word, Object v) {
            int n = word.length();
            if (pos + n > s.length() || s.charAt(pos + 1) != word.charAt(1) || s.charAt(pos + n - 1) != word.charAt(n - 1)
                    || !s.regionMatches(pos, word, 0, n)) {
                throw error("unexpected character");
            }
            pos += n;
            return v;
        }

        Map<String, Object> object() {
            if (++depth > 256) {
                throw error("nested too deeply");
            }
            Map<String, Object> m = new LinkedHashMap<>();
            pos++;
            ws();
            if (peek() == '}') {
                pos++;
                depth--;
                return m;
            }
            for (;;) {
                ws();
                if (peek() != '"') {
                    throw error("expected a key");
                }
                String key = string();
                ws();
                if (peek() != ':') {
                    throw error("expected ':'");
                }
                pos++;
                ws();
                m.put(key, value(rawKeys.contains(key)));
                ws();
                char c = peek();
                pos++;
                if (c == '}') {
                    depth--;
                    return m;
                }
                if (c != ',') {
                    throw error("expected ',' or '}'");
                }
            }
        }

        List<Object> array() {
            if (++depth > 256) {
                throw error("nested too deeply");
            }
            List<Object> a = new ArrayList<>();
            pos++;
            ws();
            if (peek() == ']') {
                pos++;
                depth--;
                return a;
            }
            for (;;) {
                ws();
                a.add(value(false));
                ws();
                char c = peek();
                pos++;
                if (c == ']') {
                    depth--;
                    return a;
                }
                if (c != ',') {
                    throw error("expected ',' or ']'");
                }
            }
        }

        char peek() {
            if (pos >= s.length()) {
                throw error("unexpected end");
            }
            return s.charAt(pos);
        }

        String string() {
            pos++;
            int start = pos;
            if (noEscapes) {
                int q = s.indexOf('"', pos);
                if (q < 0) {
                    throw error("unterminated string");
                }
                pos = q + 1;
                return s.substring(start, q);
            }
            // Fast path: no escapes.
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == '"') {
                    return s.substring(start, pos++);
                }
                if (c == '\\') {
                    break;
                }
                pos++;
            }
            StringBuilder sb = new StringBuilder(s.substring(start, pos));
            while (pos < s.length()) {
                char c = s.charAt(pos++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = peek();
                pos++;
                switch (e) {
                    case '"': sb.append('"'); break;
                    case '\\': sb.append('\\'); break;
                    case '/': sb.append('/'); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u':
                        if (pos + 4 > s.length()) {
                            throw error("bad \\u escape");
                        }
                        sb.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        pos += 4;
                        break;
                    default:
                        throw error("bad escape");
                }
            }
            throw error("unterminated string");
        }

        Object number() {
            int start = pos;
            boolean integral = true;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if ((c >= '0' && c <= '9') || c == '-') {
                    pos++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+') {
                    integral = false;
                    pos++;
                } else {
                    break;
                }
            }
            if (start == pos) {
                throw error("unexpected character");
            }
            String t = s.substring(start, pos);
            try {
                if (integral && t.length() < 19) {
                    return Long.parseLong(t);
                }
                return Double.parseDouble(t);
            } catch (NumberFormatException e) {
                throw error("bad number " + t);
            }
        }
    }

    // ---- writing ----

    /** {@code v} as JSON text: null, Boolean, Number, CharSequence, Raw, Map, Collection, arrays. */
    static String write(Object v) {
        StringBuilder sb = new StringBuilder();
        write(sb, v);
        return sb.toString();
    }

    static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Raw) {
            sb.append(((Raw) v).text());
        } else if (v instanceof Boolean) {
            sb.append(v.toString());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new ToolRegistryException(Status.INVALID_ARGUMENT, "a number is not finite: " + d);
            }
            sb.append(v.toString());
        } else if (v instanceof Number) {
            sb.append(v.toString());
        } else if (v instanceof CharSequence) {
            string(sb, v.toString());
        } else if (v instanceof Enum<?> && v instanceof Named) {
            string(sb, ((Named) v).jsonName());
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                string(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection) {
            sb.append('[');
            boolean first = true;
            for (Object o : (Collection<?>) v) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                write(sb, o);
            }
            sb.append(']');
        } else if (v instanceof float[] || v instanceof double[]) {
            sb.append('[');
            int n = java.lang.reflect.Array.getLength(v);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(sb, java.lang.reflect.Array.get(v, i));
            }
            sb.append(']');
        } else if (v instanceof Object[]) {
            write(sb, java.util.Arrays.asList((Object[]) v));
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass().getName() + " as JSON");
        }
    }

    static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    /** An object whose members are written in insertion order, {@code null} values left out. */
    static final class Obj {
        private final Map<String, Object> members = new LinkedHashMap<>();

        Obj put(String key, Object value) {
            if (value != null) {
                members.put(key, value);
            }
            return this;
        }

        boolean isEmpty() {
            return members.isEmpty();
        }

        Map<String, Object> map() {
            return members;
        }

        /** The object's text, or {@code null} when it has no members (the library's defaults). */
        String orNull() {
            return members.isEmpty() ? null : toString();
        }

        @Override
        public String toString() {
            return write(members);
        }
    }

    /** An enum written as its JSON name. */
    interface Named {
        String jsonName();
    }
}
