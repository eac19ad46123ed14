package io.lockkit.cdi.internal.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A parsed {@code @Locked} name template: literal text and placeholders ({@code {name}},
 * {@code {0}}, {@code {order.id}}, {@code {period:PT2S}}, {@code {period:PT2S:execution.scheduledFireTime}}),
 * with <code>{{</code> and <code>}}</code> as
 * escaped braces. Parsing knows nothing of the method; {@link LockedDeclaration} resolves the
 * argument placeholders against it.
 */
// Design notes.
// - {period:<ISO-8601 duration>} names the period a call belongs to by the period boundary nearest
//   to the call's wall-clock time, so that every instance's scheduler names one period alike even
//   when one fires a little early and another a little late (up to half a period either way,
//   instances' clock differences included). Truncating the firing time to the period's start would
//   split a firing a few milliseconds early and one on time between two periods; naming by the
//   timer's own next timeout depends on each container's timer bookkeeping (it once named the first
//   period after deployment differently on two WildFly Preview instances, and both ran).
//   Boundaries are multiples of the period since the epoch, rendered as an ISO-8601 instant (UTC).
// - {period:PT1S:execution.scheduledFireTime} takes the time from an argument instead of the clock:
//   the time the scheduler meant the call for (Quarkus' ScheduledExecution), so a call that runs
//   late, by more than half a period too, still names its own period, not the next one, whose own
//   call it would then block. The same rounding applies, so a first firing a few milliseconds
//   after a boundary (Quarkus gives the first call of an `every` job the time of the check) names
//   that boundary.
record NameTemplate(String source, List<Part> parts) {

    /** A piece of the template. */
    sealed interface Part permits Literal, Placeholder, Period {}

    /** Text copied as is. */
    record Literal(String text) implements Part {}

    /**
     * A value taken from the arguments: a parameter by position ({@code index >= 0}) or by name,
     * then a chain of properties.
     */
    record Placeholder(String text, int index, @Nullable String parameterName, List<String> path) implements Part {
        boolean positional() {
            return index >= 0;
        }
    }

    /**
     * {@code {period:PT2S}}: the boundary of {@code length} (a multiple of it since the epoch) nearest
     * to the call's wall-clock time, as an ISO-8601 instant; with a {@code source}
     * ({@code {period:PT2S:execution.scheduledFireTime}}), nearest to the time that argument or
     * property holds.
     */
    record Period(String text, Duration length, @Nullable Placeholder source) implements Part {

        /** The name of the period {@code epochMillis} falls in, rounded to the nearest boundary. */
        String name(long epochMillis) {
            long millis = length.toMillis();
            return Instant.ofEpochMilli(Math.floorDiv(epochMillis + millis / 2, millis) * millis)
                    .toString();
        }
    }

    /**
     * @throws DeclarationException when a brace is unmatched or a placeholder is empty or malformed
     */
    static NameTemplate parse(String source) {
        List<Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (c == '{' && i + 1 < source.length() && source.charAt(i + 1) == '{') {
                literal.append('{');
                i += 2;
            } else if (c == '}' && i + 1 < source.length() && source.charAt(i + 1) == '}') {
                literal.append('}');
                i += 2;
            } else if (c == '}') {
                throw new DeclarationException("unmatched '}' at index " + i + " (write '}}' for a literal brace)");
            } else if (c == '{') {
                int end = source.indexOf('}', i + 1);
                int nextOpen = source.indexOf('{', i + 1);
                if (end < 0 || (nextOpen >= 0 && nextOpen < end)) {
                    throw new DeclarationException("unclosed '{' at index " + i + " (write '{{' for a literal brace)");
                }
                if (literal.length() > 0) {
                    parts.add(new Literal(literal.toString()));
                    literal.setLength(0);
                }
                parts.add(placeholder(source.substring(i, end + 1), i));
                i = end + 1;
            } else {
                literal.append(c);
                i++;
            }
        }
        if (literal.length() > 0) {
            parts.add(new Literal(literal.toString()));
        }
        return new NameTemplate(source, List.copyOf(parts));
    }

    /** Whether the template has no placeholders, so every call uses the same name. */
    boolean constant() {
        return parts.stream().allMatch(Literal.class::isInstance);
    }

    private static Part placeholder(String text, int at) {
        String body = text.substring(1, text.length() - 1);
        if (body.startsWith(PERIOD)) {
            return period(text, body.substring(PERIOD.length()), at);
        }
        return argument(text, body, at);
    }

    /** A placeholder naming an argument, or a property path from one: {@code body} is what the braces hold. */
    private static Placeholder argument(String text, String body, int at) {
        if (body.isEmpty()) {
            throw new DeclarationException("empty placeholder '{}' at index " + at
                    + " (use a parameter name such as {orderId} or a position such as {0})");
        }
        String[] steps = body.split("\\.", -1);
        for (int s = 1; s < steps.length; s++) {
            if (!isIdentifier(steps[s])) {
                throw new DeclarationException("malformed placeholder '" + text + "' at index " + at + ": '" + steps[s]
                        + "' is not a property name");
            }
        }
        List<String> path = List.of(steps).subList(1, steps.length);
        String root = steps[0];
        if (!root.isEmpty() && root.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            if (root.length() > 3) {
                throw new DeclarationException(
                        "malformed placeholder '" + text + "' at index " + at + ": position too large");
            }
            return new Placeholder(text, Integer.parseInt(root), null, path);
        }
        if (!isIdentifier(root)) {
            throw new DeclarationException("malformed placeholder '" + text + "' at index " + at
                    + ": expected a parameter name or position, then optional .property steps");
        }
        return new Placeholder(text, -1, root, path);
    }

    private static final String PERIOD = "period:";

    private static Period period(String text, String spec, int at) {
        String where = "malformed placeholder '" + text + "' at index " + at + ": ";
        int colon = spec.indexOf(':');
        String length = colon < 0 ? spec : spec.substring(0, colon);
        Duration parsed;
        try {
            parsed = Duration.parse(length);
        } catch (DateTimeParseException e) {
            throw new DeclarationException(
                    where + "'" + length + "' is not an ISO-8601 duration such as PT2S, PT5M, PT1H or P1D");
        }
        if (parsed.isNegative() || parsed.isZero()) {
            throw new DeclarationException(where + "the period must be positive");
        }
        if (parsed.toNanosPart() % 1_000_000 != 0) {
            throw new DeclarationException(where + "the period must be whole milliseconds");
        }
        if (colon < 0) {
            return new Period(text, parsed, null);
        }
        String source = spec.substring(colon + 1);
        if (source.isEmpty()) {
            throw new DeclarationException(where + "nothing after the period's ':'; name the argument that holds the"
                    + " time, such as {period:PT1S:execution.scheduledFireTime}, or leave out the ':'");
        }
        return new Period(text, parsed, argument(text, source, at));
    }

    private static boolean isIdentifier(String s) {
        if (s.isEmpty() || !Character.isJavaIdentifierStart(s.codePointAt(0))) {
            return false;
        }
        return s.codePoints().skip(1).allMatch(Character::isJavaIdentifierPart);
    }
}
