package io.lockkit.jedis.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Redis key and channel names of a lock. Every name of one lock carries the same hash tag, so a
 * lock's keys share one cluster slot; braces in lock names are escaped so that they can neither
 * end the tag early nor leave it empty.
 */
public final class Keys {

    /** Slots of the cache of encoded keys: a power of two. */
    static final int CACHED_NAMES = 256;

    private final String prefix;
    /**
     * The encoded keys of recently used names, one per slot of the name's hash (a newer name takes
     * the slot over): a hot name's keys are encoded once, not on every call, and the cache never
     * holds more than {@value #CACHED_NAMES} names. Entries are immutable; a racy read sees a whole
     * one or an older one.
     */
    private final AtomicReferenceArray<@Nullable Encoded> encoded = new AtomicReferenceArray<>(CACHED_NAMES);

    public Keys(String prefix) {
        this.prefix = prefix;
    }

    /** The keys and channel of lock {@code name}, encoded for the scripts. */
    public Encoded encoded(String name) {
        int slot = name.hashCode() & (CACHED_NAMES - 1);
        Encoded e = encoded.get(slot);
        if (e != null && e.name.equals(name)) {
            return e;
        }
        e = new Encoded(name, base(name));
        encoded.set(slot, e);
        return e;
    }

    /** The encoded keys and channel of one lock name. Immutable. */
    public static final class Encoded {
        final String name;
        private final String base;
        private final List<Arg> all;
        private final List<Arg> shared;
        private final Arg channel;

        Encoded(String name, String base) {
            this.name = name;
            this.base = base;
            this.shared = sharedArgs(base);
            this.all = shared.subList(0, 3);
            this.channel = Keys.channel(all.get(0));
        }

        /** {@link Keys#base}. */
        public String base() {
            return base;
        }

        /** {@link Keys#allArgs}. */
        public List<Arg> all() {
            return all;
        }

        /** {@link Keys#sharedArgs}. */
        public List<Arg> shared() {
            return shared;
        }

        /** {@link Keys#channel(Arg)}. */
        public Arg channel() {
            return channel;
        }
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
    public static List<String> all(String base) {
        return Arg.texts(allArgs(base));
    }

    /**
     * The four keys of {@code shared.lua}: those of {@link #all} and the name's stored capacity
     * ({@code <base>:cap}, a hash without expiry: the name's configuration, which outlives its holders).
     */
    public static List<String> shared(String base) {
        return Arg.texts(sharedArgs(base));
    }

    /** The keys of {@link #all}, encoded: the base once, the others as its bytes and a suffix. */
    public static List<Arg> allArgs(String base) {
        Arg lock = Arg.of(base);
        return List.of(lock, Arg.suffixed(lock, ":q"), Arg.suffixed(lock, ":qd"));
    }

    /** The keys of {@link #shared}, encoded as {@link #allArgs} encodes its own. */
    public static List<Arg> sharedArgs(String base) {
        Arg lock = Arg.of(base);
        return List.of(lock, Arg.suffixed(lock, ":q"), Arg.suffixed(lock, ":qd"), Arg.suffixed(lock, ":cap"));
    }

    /** {@link #channel}, from the lock's encoded key. */
    public static Arg channel(Arg lock) {
        return Arg.suffixed(lock, ":c");
    }

    public static String lock(String base) {
        return base;
    }

    public static String channel(String base) {
        return base + ":c";
    }
}
