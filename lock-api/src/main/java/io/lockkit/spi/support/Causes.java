package io.lockkit.spi.support;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Failure messages that carry their root cause, for provider authors: drivers often say only
 * "Failed to create socket." or "The connection attempt failed." and keep the reason
 * ({@code UnknownHostException: redis}, {@code Connection refused}) in a cause or a suppressed
 * exception, which a server log shows dozens of lines further down. Stateless and thread-safe.
 */
// Design notes.
// - What a cause adds is shown as "SimpleName: message": the class is often the diagnosis
//   (UnknownHostException's message is only the name that did not resolve).
// - A cause's message is shown on one line, cut at 200 characters (a server's error page may follow).
// - A cause is left out when the text already says it: its "SimpleName: message", or its message
//   when that is more than one word (a one-word message, a host name, says nothing without its
//   class). Suppressed exceptions count as causes: Jedis keeps each address's connect failure
//   there. So describing a message that was built with describe() adds nothing twice.
public final class Causes {

    /** How many causes a message shows at most; the rest stay in the exception. */
    static final int MOST_SHOWN = 3;

    private static final int DEEPEST = 16;
    /** The most characters of one cause's message shown. */
    private static final int LONGEST = 200;

    private Causes() {}

    /**
     * {@code e}'s message with what its causes and suppressed exceptions say beyond it, in
     * parentheses: {@code Failed to create socket (UnknownHostException: redis)}. The message
     * alone when the causes add nothing; the class name when there is no message.
     */
    public static String describe(Throwable e) {
        String base = text(e);
        StringBuilder said = new StringBuilder(base);
        List<String> added = new ArrayList<>();
        visit(e, e, said, added, Collections.newSetFromMap(new IdentityHashMap<>()), 0);
        if (added.isEmpty()) {
            return base;
        }
        List<String> shown = added.size() > MOST_SHOWN ? added.subList(0, MOST_SHOWN) : added;
        return withoutFullStop(base) + " (" + String.join("; ", shown) + ")";
    }

    /** {@code t}, then its suppressed exceptions with their causes, then its cause: depth first, each once. */
    private static void visit(
            @Nullable Throwable t,
            Throwable top,
            StringBuilder said,
            List<String> added,
            Set<Throwable> visited,
            int depth) {
        if (t == null || depth >= DEEPEST || !visited.add(t)) {
            return;
        }
        if (t != top) {
            consider(t, said, added);
        }
        for (Throwable suppressed : t.getSuppressed()) {
            visit(suppressed, top, said, added, visited, depth + 1);
        }
        visit(t.getCause(), top, said, added, visited, depth + 1);
    }

    private static void consider(Throwable cause, StringBuilder said, List<String> added) {
        String raw = cause.getMessage();
        // One line, and not a page: the cause is shown within the first line of a log entry.
        String message = raw == null ? "" : withoutFullStop(oneLine(raw));
        String name = cause.getClass().getSimpleName();
        String shown = message.isEmpty() ? name : name + ": " + message;
        String text = said.toString();
        boolean oneWord = message.indexOf(' ') < 0;
        if (text.contains(shown) || (!message.isEmpty() && !oneWord && text.contains(message))) {
            return;
        }
        if (message.isEmpty() && cause.getCause() != null) {
            return; // a wrapper without a message: its cause speaks
        }
        added.add(shown);
        said.append(' ').append(shown);
    }

    private static String oneLine(String s) {
        String line = s.strip().replaceAll("\\s*\\R\\s*", " ");
        return line.length() <= LONGEST ? line : line.substring(0, LONGEST) + "…";
    }

    private static String text(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getName() : message.strip();
    }

    private static String withoutFullStop(String s) {
        return s.endsWith(".") && !s.endsWith("..") ? s.substring(0, s.length() - 1) : s;
    }
}
