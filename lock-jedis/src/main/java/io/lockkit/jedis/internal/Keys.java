package io.lockkit.jedis.internal;

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
        StringBuilder sb = new StringBuilder(prefix.length() + name.length() + 8).append(prefix).append(":{");
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

    /** The three keys the scripts take: lock hash (which also keeps the fencing token), wait queue, queue deadlines. */
    public static java.util.List<String> all(String base) {
        return java.util.List.of(base, base + ":q", base + ":qd");
    }

    public static String lock(String base) {
        return base;
    }

    public static String channel(String base) {
        return base + ":c";
    }
}
