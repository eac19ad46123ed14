package io.lockkit.jdbc.internal;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The builder's SQL-specific argument checks (the general ones are {@link io.lockkit.spi.support.Arguments}):
 * an {@link IllegalArgumentException} names the argument. Stateless.
 */
public final class Options {

    /** The longest identifier PostgreSQL takes (MariaDB takes 64). */
    public static final int MAX_IDENTIFIER = 63;

    /** The longest suffix of a name derived from the table's ({@code _token_seq}). */
    public static final int LONGEST_SUFFIX = "_token_seq".length();

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private Options() {}

    /** A plain SQL identifier of at most {@code max} characters. */
    public static String identifier(@Nullable String value, String argument, int max) {
        if (value == null || !IDENTIFIER.matcher(value).matches() || value.length() > max) {
            throw new IllegalArgumentException(argument + " must be 1.." + max
                    + " letters, digits or underscores, not starting with a digit (was "
                    + (value == null ? null : "'" + value + "'") + ")");
        }
        return value;
    }

    /** The URL with the value of a {@code password} parameter replaced by {@code ***}. */
    public static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
