// A small JSON scanner that accepts exactly what JavaScript's JSON.parse accepts, and a writer that escapes strings
// exactly as JSON.stringify does. The Go server's json.go and the Rust server's json.rs do the same job the same way.
//
// Why not Jackson, which Spring MVC brings? Jackson 3 disagrees with JSON.parse where the contract cares:
//   - its StreamReadConstraints stop at 500 levels of nesting (and at 1,000 digits in a number), where JSON.parse
//     takes any depth a 64 KiB body holds and numbers of any length; the limits can be lifted, but then a deep body
//     recurses in the caller that binds it to objects;
//   - it decodes a lone surrogate escape (U+D800 written as an escape) into a String without a word, where the contract wants the final
//     name or email holding one refused as invalid json, so the raw escapes would have to be looked at again anyway;
//   - binding to a record matches keys loosely unless told otherwise, and duplicate keys must keep the last value
//     even when an earlier one was malformed.
// So scanObject walks the bytes once, without recursion (an explicit stack of open containers), checks the grammar
// of RFC 8259 with JSON.parse's whitespace set, and keeps only where the last top-level name and email values are.
package dev.fairpair.users;

import java.nio.charset.StandardCharsets;

/** JSON.parse's grammar over a body's bytes, and JSON.stringify's escapes. */
public final class Json {
    private Json() {
    }

    /** A top-level member's raw value: absent, a string (start..end between its quotes), or anything else. */
    public record Member(Kind kind, int start, int end) {
        public enum Kind { ABSENT, STRING, OTHER }

        static final Member ABSENT = new Member(Kind.ABSENT, 0, 0);
    }

    /** What the scanner keeps of a valid top-level object: its last name and its last email member. */
    public record Fields(Member name, Member email) {
    }

    private static final byte OPEN_OBJECT = 0;
    private static final byte OPEN_ARRAY = 1;

    /**
     * Checks that text (already valid UTF-8) is one JSON object surrounded by optional whitespace, and returns its
     * last name and email members, or null when JSON.parse would refuse it or it is not an object. A byte-order mark
     * is not whitespace for JSON.parse, so a body starting with one is refused like any stray byte.
     */
    public static Fields scanObject(byte[] text) {
        Scanner s = new Scanner(text);
        Member name = Member.ABSENT;
        Member email = Member.ABSENT;
        s.skipWhitespace();
        if (!s.eat('{')) {
            return null;
        }
        s.skipWhitespace();
        if (!s.eat('}')) {
            while (true) {
                s.skipWhitespace();
                int keyStart = s.pos + 1;
                int escaped = s.str();
                if (escaped < 0) {
                    return null;
                }
                int keyEnd = s.pos - 1;
                s.skipWhitespace();
                if (!s.eat(':')) {
                    return null;
                }
                s.skipWhitespace();
                int start = s.pos;
                if (!s.value()) {
                    return null;
                }
                Member value = text[start] == '"' ? new Member(Member.Kind.STRING, start + 1, s.pos - 1)
                        : new Member(Member.Kind.OTHER, start, s.pos);
                String key = keyOf(text, keyStart, keyEnd, escaped == 1);
                if (key.equals("name")) {
                    name = value;
                } else if (key.equals("email")) {
                    email = value;
                }
                s.skipWhitespace();
                int next = s.next();
                if (next == '}') {
                    break;
                }
                if (next != ',') {
                    return null;
                }
            }
        }
        s.skipWhitespace();
        return s.pos == text.length ? new Fields(name, email) : null;
    }

    /** The key a raw key token spells, escapes included; only name and email matter, any other key is "". */
    private static String keyOf(byte[] text, int start, int end, boolean escaped) {
        String key = escaped ? decodeString(text, start, end) : new String(text, start, end - start,
                StandardCharsets.UTF_8);
        return key != null && (key.equals("name") || key.equals("email")) ? key : "";
    }

    /**
     * Decodes the contents of a string token that scanObject has already checked, or returns null when its escapes
     * spell an unpaired surrogate, which JSON.parse allows but which cannot be sent back as UTF-8.
     */
    public static String decodeString(byte[] raw, int start, int end) {
        StringBuilder out = null;
        int plain = start;
        for (int i = start; i < end;) {
            if (raw[i] != '\\') {
                i++;
                continue;
            }
            if (out == null) {
                out = new StringBuilder(end - start);
            }
            out.append(new String(raw, plain, i - plain, StandardCharsets.UTF_8));
            byte escape = raw[i + 1];
            i += 2;
            switch (escape) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    int unit = hex4(raw, i, end);
                    i += 4;
                    if (unit >= 0xD800 && unit <= 0xDBFF) {
                        // A high surrogate counts only when a low surrogate escape follows right away.
                        int low = i + 1 < end && raw[i] == '\\' && raw[i + 1] == 'u' ? hex4(raw, i + 2, end) : -1;
                        if (low < 0xDC00 || low > 0xDFFF) {
                            return null;
                        }
                        i += 6;
                        out.append((char) unit).append((char) low);
                    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
                        return null;
                    } else {
                        out.append((char) unit);
                    }
                }
                default -> out.append((char) escape); // '"', '\\' and '/', the only others the scanner lets by.
            }
            plain = i;
        }
        if (out == null) {
            return new String(raw, start, end - start, StandardCharsets.UTF_8);
        }
        return out.append(new String(raw, plain, end - plain, StandardCharsets.UTF_8)).toString();
    }

    /** The four hex digits of a \\u escape at at, as a UTF-16 code unit, or -1. */
    static int hex4(byte[] bytes, int at, int end) {
        if (at < 0 || at + 4 > end) {
            return -1;
        }
        int unit = 0;
        for (int i = at; i < at + 4; i++) {
            int digit = Character.digit(bytes[i], 16);
            if (digit < 0 || bytes[i] > 'f') {
                return -1;
            }
            unit = unit * 16 + digit;
        }
        return unit;
    }

    /** A cursor over the body's bytes. */
    private static final class Scanner {
        final byte[] bytes;
        int pos;
        // The stack of open containers, shared by all the values of the object, so it grows at most once.
        byte[] open = new byte[64];
        int depth;

        Scanner(byte[] bytes) {
            this.bytes = bytes;
        }

        int next() {
            return pos < bytes.length ? bytes[pos++] : -1;
        }

        boolean eat(char want) {
            if (pos < bytes.length && bytes[pos] == want) {
                pos++;
                return true;
            }
            return false;
        }

        /** JSON.parse's whitespace: space, tab, line feed and carriage return, and nothing else. */
        void skipWhitespace() {
            while (pos < bytes.length) {
                byte b = bytes[pos];
                if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                    return;
                }
                pos++;
            }
        }

        void push(byte kind) {
            if (depth == open.length) {
                open = java.util.Arrays.copyOf(open, depth * 2);
            }
            open[depth++] = kind;
        }

        /** Scans one complete value of any depth, keeping the open containers on the explicit stack. */
        boolean value() {
            while (true) {
                skipWhitespace();
                int b = next();
                boolean ok;
                if (b == '{') {
                    skipWhitespace();
                    if (!eat('}')) {
                        push(OPEN_OBJECT);
                        if (!memberKey()) {
                            return false;
                        }
                        continue;
                    }
                    ok = true;
                } else if (b == '[') {
                    skipWhitespace();
                    if (!eat(']')) {
                        push(OPEN_ARRAY);
                        continue;
                    }
                    ok = true;
                } else if (b == '"') {
                    pos--;
                    ok = str() >= 0;
                } else if (b == 't') {
                    ok = rest("rue");
                } else if (b == 'f') {
                    ok = rest("alse");
                } else if (b == 'n') {
                    ok = rest("ull");
                } else if (b == '-' || (b >= '0' && b <= '9')) {
                    pos--;
                    ok = number();
                } else {
                    ok = false;
                }
                if (!ok || !closeContainers()) {
                    return false;
                }
                if (depth == 0) {
                    return true;
                }
            }
        }

        /**
         * After a value: pops every container that ends here and stops after the comma of one that goes on (and
         * after the next key, in an object). An empty stack means the outermost value has ended.
         */
        boolean closeContainers() {
            while (depth > 0) {
                byte innermost = open[depth - 1];
                skipWhitespace();
                int b = next();
                if (b == ',' && innermost == OPEN_OBJECT) {
                    skipWhitespace();
                    return memberKey();
                } else if (b == ',' && innermost == OPEN_ARRAY) {
                    return true;
                } else if ((b == '}' && innermost == OPEN_OBJECT) || (b == ']' && innermost == OPEN_ARRAY)) {
                    depth--;
                } else {
                    return false;
                }
            }
            return true;
        }

        /** `"key" :` inside a nested object, up to where the member's value starts. */
        boolean memberKey() {
            if (str() < 0) {
                return false;
            }
            skipWhitespace();
            return eat(':');
        }

        /**
         * A string token: no raw control characters, only the escapes JSON defines; lone surrogate escapes are fine
         * here, as they are for JSON.parse. Returns -1 when malformed, 1 when it holds an escape, else 0.
         */
        int str() {
            if (!eat('"')) {
                return -1;
            }
            int escaped = 0;
            while (true) {
                int b = next();
                if (b == -1 || (b >= 0 && b < 0x20)) {
                    return -1;
                }
                if (b == '"') {
                    return escaped;
                }
                if (b == '\\') {
                    escaped = 1;
                    int e = next();
                    if (e == 'u') {
                        if (hex4(bytes, pos, bytes.length) < 0) {
                            return -1;
                        }
                        pos += 4;
                    } else if ("\"\\/bfnrt".indexOf(e) < 0 || e < 0) {
                        return -1;
                    }
                }
                // Any other byte, including those of multi-byte UTF-8 sequences (negative as Java bytes).
            }
        }

        /** -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, of any magnitude. */
        boolean number() {
            eat('-');
            int b = next();
            if (b >= '1' && b <= '9') {
                digits();
            } else if (b != '0') {
                return false;
            }
            if (eat('.') && !atLeastOneDigit()) {
                return false;
            }
            if (eat('e') || eat('E')) {
                if (!eat('+')) {
                    eat('-');
                }
                return atLeastOneDigit();
            }
            return true;
        }

        void digits() {
            while (pos < bytes.length && bytes[pos] >= '0' && bytes[pos] <= '9') {
                pos++;
            }
        }

        boolean atLeastOneDigit() {
            int start = pos;
            digits();
            return pos > start;
        }

        boolean rest(String literal) {
            for (int i = 0; i < literal.length(); i++) {
                if (pos + i >= bytes.length || bytes[pos + i] != literal.charAt(i)) {
                    return false;
                }
            }
            pos += literal.length();
            return true;
        }
    }

    /**
     * Appends text as a JSON string escaped the way JSON.stringify does it: \" and \\, the short escapes, other
     * control characters as lowercase u00xx escapes, and everything else (non-ASCII, DEL, U+2028, <, > and &) as it is.
     */
    public static void appendString(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** A user as the contract writes it: {"id":N,"name":"…","email":"…"}, compact, in that order, as UTF-8. */
    public static byte[] user(Store.User user) {
        StringBuilder out = new StringBuilder(32 + user.name().length() + user.email().length());
        out.append("{\"id\":").append(user.id()).append(",\"name\":");
        appendString(out, user.name());
        out.append(",\"email\":");
        appendString(out, user.email());
        return out.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A one-member object such as {"error":"not found"} or {"status":"ok"}, as UTF-8. */
    public static byte[] object(String key, String value) {
        StringBuilder out = new StringBuilder(8 + key.length() + value.length()).append('{');
        appendString(out, key);
        out.append(':');
        appendString(out, value);
        return out.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }
}
