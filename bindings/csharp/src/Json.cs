using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Runtime.Serialization.Json;
using System.Text;

namespace ToolRegistry
{
    /// <summary>Builds the small option objects the C ABI takes.</summary>
    internal sealed class JsonObjectWriter
    {
        private readonly StringBuilder sb = new StringBuilder("{");
        private bool first = true;

        private void Key(string key)
        {
            if (!first)
            {
                sb.Append(',');
            }
            first = false;
            WriteString(sb, key);
            sb.Append(':');
        }

        internal JsonObjectWriter Add(string key, string value)
        {
            if (value != null)
            {
                Key(key);
                WriteString(sb, value);
            }
            return this;
        }

        internal JsonObjectWriter Add(string key, double? value)
        {
            if (value.HasValue)
            {
                Key(key);
                WriteNumber(sb, value.Value);
            }
            return this;
        }

        internal JsonObjectWriter Add(string key, int? value)
        {
            if (value.HasValue)
            {
                Key(key);
                sb.Append(value.Value.ToString(CultureInfo.InvariantCulture));
            }
            return this;
        }

        internal JsonObjectWriter Add(string key, bool? value)
        {
            if (value.HasValue)
            {
                Key(key);
                sb.Append(value.Value ? "true" : "false");
            }
            return this;
        }

        internal JsonObjectWriter Add(string key, IEnumerable<string> values)
        {
            if (values != null)
            {
                Key(key);
                sb.Append('[');
                bool firstItem = true;
                foreach (var v in values)
                {
                    if (v == null)
                    {
                        throw new ArgumentException(key + " contains null");
                    }
                    if (!firstItem)
                    {
                        sb.Append(',');
                    }
                    firstItem = false;
                    WriteString(sb, v);
                }
                sb.Append(']');
            }
            return this;
        }

        internal JsonObjectWriter Add(string key, IDictionary<string, double> values)
        {
            if (values != null)
            {
                Key(key);
                var inner = new JsonObjectWriter();
                foreach (var kv in values)
                {
                    inner.Add(kv.Key, (double?)kv.Value);
                }
                sb.Append(inner.ToString());
            }
            return this;
        }

        internal JsonObjectWriter AddRaw(string key, string rawJson)
        {
            if (rawJson != null)
            {
                Key(key);
                sb.Append(rawJson);
            }
            return this;
        }

        internal bool IsEmpty
        {
            get { return first; }
        }

        public override string ToString()
        {
            return sb.ToString() + "}";
        }

        private static void WriteNumber(StringBuilder sb, double d)
        {
            if (double.IsNaN(d) || double.IsInfinity(d))
            {
                // JSON has no spelling for these; the library would refuse them anyway.
                throw new ArgumentOutOfRangeException("value", d, "must be a finite number");
            }
            sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
        }

        internal static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    default:
                        if (c < 0x20)
                        {
                            sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        }
                        else
                        {
                            sb.Append(c);
                        }
                        break;
                }
            }
            sb.Append('"');
        }
    }

    /// <summary>Reads the library's JSON answers.</summary>
    /// <remarks>
    /// Typed fields go through DataContractJsonSerializer, which ships with both Mono and .NET
    /// (netstandard2.0). It cannot keep an arbitrary JSON value as text, so <see cref="RawMembers"/>
    /// walks the same array and cuts out the raw text of one member of each element (the schema).
    /// </remarks>
    internal static class JsonReader
    {
        internal static T Deserialize<T>(string json)
        {
            var serializer = new DataContractJsonSerializer(typeof(T));
            using (var stream = new MemoryStream(Encoding.UTF8.GetBytes(json)))
            {
                return (T)serializer.ReadObject(stream);
            }
        }

        /// <summary>
        /// For each element of a top-level JSON array of objects, the raw text of member
        /// <paramref name="key"/>, or null where the element has no such member.
        /// </summary>
        internal static List<string> RawMembers(string json, string key)
        {
            var result = new List<string>();
            int i = SkipSpace(json, 0);
            Expect(json, i, '[');
            i = SkipSpace(json, i + 1);
            if (json[i] == ']')
            {
                return result;
            }
            while (true)
            {
                Expect(json, i, '{');
                string found = null;
                i = SkipSpace(json, i + 1);
                if (json[i] != '}')
                {
                    while (true)
                    {
                        string name;
                        i = ReadString(json, i, out name);
                        i = SkipSpace(json, i);
                        Expect(json, i, ':');
                        int start = SkipSpace(json, i + 1);
                        int end = SkipValue(json, start);
                        if (name == key)
                        {
                            found = json.Substring(start, end - start);
                        }
                        i = SkipSpace(json, end);
                        if (json[i] == ',')
                        {
                            i = SkipSpace(json, i + 1);
                            continue;
                        }
                        Expect(json, i, '}');
                        break;
                    }
                }
                result.Add(found);
                i = SkipSpace(json, i + 1);
                if (json[i] == ',')
                {
                    i = SkipSpace(json, i + 1);
                    continue;
                }
                Expect(json, i, ']');
                return result;
            }
        }

        /// <summary>The value of a raw JSON string (with its quotes).</summary>
        internal static string Unquote(string raw)
        {
            string value;
            int end = ReadString(raw, SkipSpace(raw, 0), out value);
            if (end != raw.Length)
            {
                throw Malformed(end);
            }
            return value;
        }

        /// <summary>The raw text of each element of a top-level JSON array.</summary>
        internal static List<string> RawElements(string json)
        {
            var result = new List<string>();
            int i = SkipSpace(json, 0);
            Expect(json, i, '[');
            i = SkipSpace(json, i + 1);
            if (json[i] == ']')
            {
                return result;
            }
            while (true)
            {
                int end = SkipValue(json, i);
                result.Add(json.Substring(i, end - i));
                i = SkipSpace(json, end);
                if (json[i] == ',')
                {
                    i = SkipSpace(json, i + 1);
                    continue;
                }
                Expect(json, i, ']');
                return result;
            }
        }

        private static int SkipSpace(string s, int i)
        {
            while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            {
                i++;
            }
            if (i >= s.Length)
            {
                throw Malformed(i);
            }
            return i;
        }

        private static void Expect(string s, int i, char c)
        {
            if (i >= s.Length || s[i] != c)
            {
                throw Malformed(i);
            }
        }

        private static FormatException Malformed(int i)
        {
            return new FormatException("unexpected JSON from libtoolregistry at offset " + i);
        }

        /// <summary>Reads a string starting at its opening quote; returns the index after the closing quote.</summary>
        private static int ReadString(string s, int i, out string value)
        {
            Expect(s, i, '"');
            var sb = new StringBuilder();
            i++;
            while (i < s.Length)
            {
                char c = s[i];
                if (c == '"')
                {
                    value = sb.ToString();
                    return i + 1;
                }
                if (c == '\\')
                {
                    if (i + 1 >= s.Length)
                    {
                        break;
                    }
                    char e = s[i + 1];
                    switch (e)
                    {
                        case 'n': sb.Append('\n'); break;
                        case 't': sb.Append('\t'); break;
                        case 'r': sb.Append('\r'); break;
                        case 'b': sb.Append('\b'); break;
                        case 'f': sb.Append('\f'); break;
                        case 'u':
                            if (i + 6 > s.Length)
                            {
                                throw Malformed(i);
                            }
                            sb.Append((char)int.Parse(s.Substring(i + 2, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                            i += 4;
                            break;
                        default: sb.Append(e); break;
                    }
                    i += 2;
                    continue;
                }
                sb.Append(c);
                i++;
            }
            throw Malformed(i);
        }

        /// <summary>Skips any JSON value starting at <paramref name="i"/>; returns the index after it.</summary>
        private static int SkipValue(string s, int i)
        {
            char c = s[i];
            if (c == '"')
            {
                string ignored;
                return ReadString(s, i, out ignored);
            }
            if (c == '{' || c == '[')
            {
                // Depth counting is enough: strings are skipped whole, so their brackets do not count.
                int depth = 0;
                while (i < s.Length)
                {
                    char d = s[i];
                    if (d == '"')
                    {
                        string ignored;
                        i = ReadString(s, i, out ignored);
                        continue;
                    }
                    if (d == '{' || d == '[')
                    {
                        depth++;
                    }
                    else if (d == '}' || d == ']')
                    {
                        depth--;
                        if (depth == 0)
                        {
                            return i + 1;
                        }
                    }
                    i++;
                }
                throw Malformed(i);
            }
            // number, true, false, null
            int start = i;
            while (i < s.Length && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' && s[i] != '\r' && s[i] != '\t')
            {
                i++;
            }
            if (i == start)
            {
                throw Malformed(i);
            }
            return i;
        }
    }
}
