package io.lockkit.jedis.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The checks of the provider's builder: each throws {@link IllegalArgumentException} naming the argument. */
public final class Arguments {

    private static final Duration LONGEST = Duration.ofDays(1);

    private Arguments() {}

    /** {@code value}, when it is not null. */
    public static <T> T notNull(@Nullable T value, String argument) {
        if (value == null) {
            throw new IllegalArgumentException(argument + " must not be null");
        }
        return value;
    }

    /** {@code value}, when it is at least {@code least}. */
    public static int atLeast(int value, int least, String argument) {
        if (value < least) {
            throw new IllegalArgumentException(argument
                    + (least == 0 ? " must not be negative" : " must be at least " + least) + ", was " + value);
        }
        return value;
    }

    /** {@code d}, when it is more than zero and at most a day. */
    public static Duration positive(@Nullable Duration d, String argument) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(argument + " must be positive, was " + d);
        }
        if (d.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(argument + " must be at most one day, was " + d);
        }
        return d;
    }
}
