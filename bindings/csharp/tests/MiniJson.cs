using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// A JSON value with the raw text it was parsed from, so golden tools can be re-sent verbatim.
    /// Independent of the binding's own reader on purpose: the tests check the binding against it.
    /// </summary>
    internal sealed class JsonNode
    {
        public char Kind;             // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
        public string Raw;
        public string Str;
        public double Num;
        public bool Bool;
        public readonly List<KeyValuePair<string, JsonNode>> Members = new List<KeyValuePair<string, JsonNode>>();
        public readonly List<JsonNode> Items = new List<JsonNode>();

        public JsonNode this[string key]
        {
            get
            {
                foreach (var kv in Members)
                {
                    if (kv.Key == key)
                    {
                        return kv.Value;
                    }
                }
                return null;
            }
        }

        public bool Has(string key)
        {
            return this[key] != null;
        }

        public static JsonNode Parse(string text)
        {
            int i = 0;
            var node = ParseValue(text, ref i);
            SkipWs(text, ref i);
            if (i != text.Length)
            {
                throw new FormatException("trailing text at " + i);
            }
            return node;
        }

        private static void SkipWs(string s, ref int i)
        {
            while (i < s.Length && char.IsWhiteSpace(s[i]))
            {
                i++;
            }
        }

        private static JsonNode ParseValue(string s, ref int i)
        {
            SkipWs(s, ref i);
            int start = i;
            var node = new JsonNode();
            char c = s[i];
            if (c == '{')
            {
                node.Kind = 'o';
                i++;
                SkipWs(s, ref i);
                if (s[i] == '}')
                {
                    i++;
                }
                else
                {
                    while (true)
                    {
                        SkipWs(s, ref i);
                        string key = ParseString(s, ref i);
                        SkipWs(s, ref i);
                        if (s[i++] != ':')
                        {
                            throw new FormatException("':' expected at " + (i - 1));
                        }
                        node.Members.Add(new KeyValuePair<string, JsonNode>(key, ParseValue(s, ref i)));
                        SkipWs(s, ref i);
                        char d = s[i++];
                        if (d == '}')
                        {
                            break;
                        }
                        if (d != ',')
                        {
                            throw new FormatException("',' or '}' expected at " + (i - 1));
                        }
                    }
                }
            }
            else if (c == '[')
            {
                node.Kind = 'a';
                i++;
                SkipWs(s, ref i);
                if (s[i] == ']')
                {
                    i++;
                }
                else
                {
                    while (true)
                    {
                        node.Items.Add(ParseValue(s, ref i));
                        SkipWs(s, ref i);
                        char d = s[i++];
                        if (d == ']')
                        {
                            break;
                        }
                        if (d != ',')
                        {
                            throw new FormatException("',' or ']' expected at " + (i - 1));
                        }
                    }
                }
            }
            else if (c == '"')
            {
                node.Kind = 's';
                node.Str = ParseString(s, ref i);
            }
            else if (string.CompareOrdinal(s, i, "true", 0, 4) == 0)
            {
                node.Kind = 'b';
                node.Bool = true;
                i += 4;
            }
            else if (string.CompareOrdinal(s, i, "false", 0, 5) == 0)
            {
                node.Kind = 'b';
                i += 5;
            }
            else if (string.CompareOrdinal(s, i, "null", 0, 4) == 0)
            {
                node.Kind = 'z';
                i += 4;
            }
            else
            {
                node.Kind = 'n';
                while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0)
                {
                    i++;
                }
                node.Num = double.Parse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture);
            }
            node.Raw = s.Substring(start, i - start);
            return node;
        }

        private static string ParseString(string s, ref int i)
        {
            if (s[i] != '"')
            {
                throw new FormatException("string expected at " + i);
            }
            i++;
            var sb = new StringBuilder();
            while (s[i] != '"')
            {
                char c = s[i++];
                if (c != '\\')
                {
                    sb.Append(c);
                    continue;
                }
                char e = s[i++];
                switch (e)
                {
                    case 'n': sb.Append('\n'); break;
                    case 't': sb.Append('\t'); break;
                    case 'r': sb.Append('\r'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'u':
                        sb.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                        i += 4;
                        break;
                    default: sb.Append(e); break;
                }
            }
            i++;
            return sb.ToString();
        }
    }
}
