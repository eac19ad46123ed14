package io.lockkit.cli;

import io.lockkit.LockOptions;
import java.time.Duration;
import picocli.CommandLine;

/**
 * Reads a positive duration in the forms lockkit's configuration takes ({@link LockOptions#parseDuration}):
 * {@code 250ms}, {@code 2s}, {@code 1m}, {@code 1h}, {@code 1d}, ISO-8601 ({@code PT1.5S}), or a bare
 * number of seconds ({@code 2}).
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        Duration d;
        try {
            d = LockOptions.parseDuration(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration such as 500ms, 2s, 1m, PT1.5S or 2 (seconds)");
        }
        if (d.isNegative() || d.isZero()) {
            throw new CommandLine.TypeConversionException("'" + value + "' must be a positive duration");
        }
        return d;
    }
}
