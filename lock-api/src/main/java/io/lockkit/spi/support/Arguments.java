package io.lockkit.spi.support;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The argument checks of a provider's builder, for provider authors: each returns the value it
 * accepts and otherwise throws an {@link IllegalArgumentException} naming the argument and the
 * value, as lockkit's own builders do. Stateless.
 */
public final class Arguments {

    /** The longest duration {@link #positive} accepts: one day. */
    public static final Duration LONGEST = Duration.ofDays(1);

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

    /** {@code d}, when it is more than zero and at most {@link #LONGEST}. */
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
