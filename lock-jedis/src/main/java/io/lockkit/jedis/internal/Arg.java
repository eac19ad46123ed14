package io.lockkit.jedis.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.args.Rawable;

/**
 * A key or argument of a script call, encoded once, that Jedis writes as it is. A {@code String}
 * argument costs Jedis two arrays on every call (it encodes the text, then copies the bytes);
 * an {@code Arg} costs one when it is made, and none when it is a constant or cached. Immutable;
 * {@link #getRaw()} hands out the array itself, which nobody may change (Jedis only writes it).
 */
public final class Arg implements Rawable {

    private static final Arg[] SMALL = new Arg[65];

    static {
        for (int i = 0; i < SMALL.length; i++) {
            SMALL[i] = new Arg(Integer.toString(i));
        }
    }

    private final byte[] raw;
    /** The text, when the argument was made from one (else decoded when asked for). */
    private final @Nullable String text;

    private Arg(String text) {
        this.raw = text.getBytes(StandardCharsets.UTF_8);
        this.text = text;
    }

    private Arg(byte[] raw, @Nullable String text) {
        this.raw = raw;
        this.text = text;
    }

    /** {@code text}, encoded as UTF-8. */
    public static Arg of(String text) {
        return new Arg(text);
    }

    /** {@code value} in decimal digits; 0 to 64 are constants. */
    public static Arg of(long value) {
        if (value >= 0 && value < SMALL.length) {
            return SMALL[(int) value];
        }
        return new Arg(Long.toString(value));
    }

    /** {@code flag} as the scripts take flags: {@code "1"} or {@code "0"}. */
    public static Arg of(boolean flag) {
        return SMALL[flag ? 1 : 0];
    }

    /** {@code value} in base 36 (digits and lower-case letters), written straight into one array. */
    public static Arg base36(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("value must not be negative, was " + value);
        }
        byte[] digits = new byte[13]; // 36^13 > 2^63
        int at = digits.length;
        do {
            int d = (int) (value % 36);
            digits[--at] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
            value /= 36;
        } while (value != 0);
        return new Arg(at == 0 ? digits : Arrays.copyOfRange(digits, at, digits.length), null);
    }

    /**
     * {@code base} followed by the ASCII {@code suffix}, in one array; with its text too when the
     * base has one, so that the calls that take strings do not decode it on every call.
     */
    static Arg suffixed(Arg base, String suffix) {
        byte[] raw = Arrays.copyOf(base.raw, base.raw.length + suffix.length());
        for (int i = 0; i < suffix.length(); i++) {
            raw[base.raw.length + i] = (byte) suffix.charAt(i);
        }
        return new Arg(raw, base.text == null ? null : base.text + suffix);
    }

    /** The texts of {@code args}, for the Jedis calls that take strings (a Cluster, Sentinel, pipelines). */
    public static List<String> texts(List<Arg> args) {
        List<String> texts = new ArrayList<>(args.size());
        for (Arg a : args) {
            texts.add(a.toString());
        }
        return texts;
    }

    @Override
    public byte[] getRaw() {
        return raw;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Arg other && Arrays.equals(raw, other.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    /** The text, as the script reads it. */
    @Override
    public String toString() {
        return text != null ? text : new String(raw, StandardCharsets.UTF_8);
    }

    /**
     * The argument of the last value asked for, encoded again only when the value changes: a
     * provider passes the same few leases, timeouts and settings call after call, and each call
     * site keeps one of these. Thread-safe (a racy cache of an immutable pair).
     *
     * @param <V> the value's type, compared with {@code equals}
     */
    static final class Remembered<V> {

        private static final class Last<V> {
            final V value;
            final Arg arg;

            Last(V value, Arg arg) {
                this.value = value;
                this.arg = arg;
            }
        }

        private final Function<? super V, Arg> encode;
        private volatile @Nullable Last<V> last;

        Remembered(Function<? super V, Arg> encode) {
            this.encode = encode;
        }

        Arg of(V value) {
            Last<V> l = last;
            if (l != null && l.value.equals(value)) {
                return l.arg;
            }
            Arg arg = encode.apply(value);
            last = new Last<>(value, arg);
            return arg;
        }
    }
}
