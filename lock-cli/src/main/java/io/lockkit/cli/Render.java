package io.lockkit.cli;

import io.lockkit.LockInfo;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a lock reads in a table and in JSON. JSON is written by hand (one small escaper, RFC 8259):
 * no JSON library in the jar. In JSON a provider's "none" values are {@code null}: no fencing
 * token (0 in {@link LockInfo}), waiters unknown (-1). In tables they read {@code -} and {@code ?}.
 */
final class Render {

    static final List<String> HEADERS = List.of("NAME", "HOLDER", "CLIENT", "COUNT", "TOKEN", "LEASE LEFT", "WAITERS");
    /** Which of {@link #HEADERS} are right-aligned (numbers). */
    static final boolean[] RIGHT = {false, false, false, true, true, true, true};

    private Render() {}

    /** The cells of a table row; the holder is the owner within its client ({@code t<thread>}, {@code h<handle>}). */
    static String[] cells(LockInfo lock) {
        return new String[] {
            printable(lock.name()),
            lock.shared() ? shared(lock) : printable(holder(lock)),
            lock.shared() ? "" : printable(lock.clientId()),
            lock.shared() ? "" : Integer.toString(lock.holdCount()),
            token(lock.fencingToken()),
            lease(lock.leaseLeft()),
            waiters(lock.waiters())
        };
    }

    /**
     * {@code s} safe for a terminal: control characters (which in a lock name could move the
     * cursor or recolour the operator's screen) shown as a backslash escape ({@code \x1b} for ESC).
     */
    static String printable(String s) {
        @Nullable StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean control = c < 0x20 || (c >= 0x7f && c < 0xa0) || c == '\u2028' || c == '\u2029';
            if (control && sb == null) {
                sb = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            if (sb != null) {
                if (!control) {
                    sb.append(c);
                } else if (c < 0x100) {
                    sb.append(String.format(java.util.Locale.ROOT, "\\x%02x", (int) c));
                } else {
                    sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                }
            }
        }
        return sb == null ? s : sb.toString();
    }

    /**
     * The HOLDER cell of a name held shared: its holders, and its permits against the stored
     * capacity when it has one ({@code "3 shared, 4/5 permits"}, {@code "2 readers"}).
     */
    static String shared(LockInfo lock) {
        int n = lock.holders().size();
        return lock.capacity() < 0
                ? n + (n == 1 ? " reader" : " readers")
                : n + " shared, " + lock.permitsHeld() + "/" + lock.capacity() + " permits";
    }

    /** The owner id without its client part (the CLIENT column shows that). */
    static String holder(LockInfo lock) {
        String owner = lock.owner();
        return owner.length() > lock.clientId().length() && owner.startsWith(lock.clientId() + ":")
                ? owner.substring(lock.clientId().length() + 1)
                : owner;
    }

    static String token(long token) {
        return token == 0 ? "-" : Long.toString(token);
    }

    static String waiters(int waiters) {
        return waiters < 0 ? "?" : Integer.toString(waiters);
    }

    /** {@code 850ms}, {@code 12.3s}, {@code 4m05s}, {@code 2h03m}. (No String.format: list renders one per row.) */
    static String lease(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return (ms / 1000) + "." + (ms % 1000) / 100 + "s";
        }
        long s = ms / 1000;
        if (s < 3600) {
            return s / 60 + "m" + twoDigits(s % 60) + "s";
        }
        return s / 3600 + "h" + twoDigits((s % 3600) / 60) + "m";
    }

    private static String twoDigits(long n) {
        return n < 10 ? "0" + n : Long.toString(n);
    }

    /** The lock as one JSON object; with {@code "held":true} after the name when {@code withHeld}. */
    static StringBuilder json(StringBuilder sb, LockInfo lock, boolean withHeld) {
        sb.append("{\"name\":");
        string(sb, lock.name());
        if (withHeld) {
            sb.append(",\"held\":true");
        }
        sb.append(",\"owner\":");
        string(sb, lock.owner());
        sb.append(",\"clientId\":");
        string(sb, lock.clientId());
        sb.append(",\"holdCount\":").append(lock.holdCount());
        sb.append(",\"fencingToken\":");
        if (lock.fencingToken() == 0) {
            sb.append("null");
        } else {
            sb.append(lock.fencingToken());
        }
        sb.append(",\"leaseLeftMillis\":").append(lock.leaseLeft().toMillis());
        sb.append(",\"waiters\":");
        if (lock.waiters() < 0) {
            sb.append("null");
        } else {
            sb.append(lock.waiters());
        }
        if (lock.shared()) {
            sb.append(",\"mode\":\"shared\",\"capacity\":");
            sb.append(lock.capacity() < 0 ? "null" : Integer.toString(lock.capacity()));
            sb.append(",\"permitsHeld\":").append(lock.permitsHeld()).append(",\"holders\":[");
            for (int i = 0; i < lock.holders().size(); i++) {
                LockInfo.Holder h = lock.holders().get(i);
                string(sb.append(i == 0 ? "{\"owner\":" : ",{\"owner\":"), h.owner());
                sb.append(",\"permits\":").append(h.permits());
                sb.append(",\"holdCount\":").append(h.holdCount()).append('}');
            }
            sb.append(']');
        }
        return sb.append('}');
    }

    /**
     * A failure as JSON, what {@code --json} writes on stdout when the CLI exits with a usage error,
     * a backend failure or an internal error: {@code {"exitCode":N,"error":KIND,"message":TEXT}}.
     */
    static StringBuilder error(StringBuilder sb, int exitCode, String kind, String message) {
        return errorFields(sb.append('{'), exitCode, kind, message).append('}');
    }

    /** The fields of {@link #error}, for a document that ends in a failure after it began ({@code list}). */
    static StringBuilder errorFields(StringBuilder sb, int exitCode, String kind, String message) {
        sb.append("\"exitCode\":").append(exitCode).append(",\"error\":");
        string(sb, kind).append(",\"message\":");
        return string(sb, message);
    }

    /** The kind of failure an exit code stands for, in {@link #error}. */
    static String kind(int exitCode) {
        return switch (exitCode) {
            case LockkitCli.EXIT_USAGE -> "usage";
            case LockkitCli.EXIT_BACKEND -> "backend";
            default -> "internal";
        };
    }

    /** {@code s} as a JSON string literal: quotes, backslashes and control characters escaped. */
    static StringBuilder string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"');
    }
}
