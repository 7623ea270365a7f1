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

    private static final class Reader {
        final String s;
        final Set<String> rawKeys;
        int pos;
        int depth;

        Reader(String s, Set<String> rawKeys) {
            this.s = s;
            this.rawKeys = rawKeys;
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

        Object literal(String word, Object v) {
            if (!s.startsWith(word, pos)) {
                throw error("unexpected character");
            }
            pos += word.length();
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
        } else if (v instanceof float[]) {
            float[] a = (float[]) v;
            sb.append('[');
            for (int i = 0; i < a.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(sb, a[i]);
            }
            sb.append(']');
        } else if (v instanceof double[]) {
            double[] a = (double[]) v;
            sb.append('[');
            for (int i = 0; i < a.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(sb, a[i]);
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
