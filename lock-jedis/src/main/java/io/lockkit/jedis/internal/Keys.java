package io.lockkit.jedis.internal;

import org.jspecify.annotations.Nullable;

/**
 * Redis key and channel names of a lock. Every name of one lock carries the same hash tag, so a
 * lock's keys share one cluster slot; braces in lock names are escaped so that they can neither
 * end the tag early nor leave it empty.
 */
public final class Keys {

    private final String prefix;

    public Keys(String prefix) {
        this.prefix = prefix;
    }

    /** {@code <prefix>:{<escaped name>}} — the tag part every key of the lock starts with. */
    public String base(String name) {
        StringBuilder sb = new StringBuilder(prefix.length() + name.length() + 8)
                .append(prefix)
                .append(":{");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '%' -> sb.append("%25");
                case '{' -> sb.append("%7B");
                case '}' -> sb.append("%7D");
                default -> sb.append(c);
            }
        }
        return sb.append('}').toString();
    }

    /**
     * A {@code SCAN MATCH} pattern for the lock hashes whose names start with {@code namePrefix}:
     * the key up to the escaped prefix with glob characters ({@code * ? [ ] \}) escaped, then
     * {@code *}, then the closing brace, which only a lock hash's key ends with (the queue and
     * deadline keys go on after it; a brace inside a name is escaped).
     */
    public String lockPattern(String namePrefix) {
        String literal = base(namePrefix);
        literal = literal.substring(0, literal.length() - 1); // up to the escaped prefix, without the closing brace
        StringBuilder sb = new StringBuilder(literal.length() + 8);
        for (int i = 0; i < literal.length(); i++) {
            char c = literal.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.append("*}").toString();
    }

    /** The lock name of a lock hash's key, or null when {@code key} is not one of this prefix. */
    public @Nullable String nameOf(String key) {
        String start = prefix + ":{";
        if (!key.startsWith(start) || !key.endsWith("}") || key.length() < start.length() + 2) {
            return null;
        }
        String escaped = key.substring(start.length(), key.length() - 1);
        if (escaped.indexOf('{') >= 0 || escaped.indexOf('}') >= 0) {
            return null;
        }
        StringBuilder sb = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c == '%' && escaped.startsWith("%25", i)) {
                sb.append('%');
                i += 2;
            } else if (c == '%' && escaped.startsWith("%7B", i)) {
                sb.append('{');
                i += 2;
            } else if (c == '%' && escaped.startsWith("%7D", i)) {
                sb.append('}');
                i += 2;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** The three keys the scripts take: lock hash (which also keeps the fencing token), wait queue, queue deadlines. */
    public static java.util.List<String> all(String base) {
        return java.util.List.of(base, base + ":q", base + ":qd");
    }

    /**
     * The four keys of {@code shared.lua}: those of {@link #all} and the name's stored capacity
     * ({@code <base>:cap}, a hash without expiry: the name's configuration, which outlives its holders).
     */
    public static java.util.List<String> shared(String base) {
        return java.util.List.of(base, base + ":q", base + ":qd", base + ":cap");
    }

    public static String lock(String base) {
        return base;
    }

    public static String channel(String base) {
        return base + ":c";
    }
}
