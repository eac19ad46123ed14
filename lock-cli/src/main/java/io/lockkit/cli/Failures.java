package io.lockkit.cli;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import java.io.PrintWriter;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * Turns what a command throws into a message on stderr and an exit code: a bad option value found
 * late is a usage error ({@value LockkitCli#EXIT_USAGE}), any {@link LockException} a backend
 * failure ({@value LockkitCli#EXIT_BACKEND}) explained in the operator's terms (unreachable,
 * authentication, ACL), anything else a bug ({@value LockkitCli#EXIT_INTERNAL}, with its trace).
 */
final class Failures implements CommandLine.IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, CommandLine.ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        if (ex instanceof Target.UsageException) {
            err.println("lockkit: " + ex.getMessage());
            err.println("Try 'lockkit " + commandLine.getCommandName() + " --help'.");
            return LockkitCli.EXIT_USAGE;
        }
        if (ex instanceof LockException) {
            err.println("lockkit: " + explain((LockException) ex, target(commandLine)));
            return LockkitCli.EXIT_BACKEND;
        }
        err.println("lockkit: internal error, please report it with this trace:");
        ex.printStackTrace(err);
        return LockkitCli.EXIT_INTERNAL;
    }

    /** The Redis in words, or "Redis" when the options cannot say. */
    private static String target(CommandLine commandLine) {
        Object root = commandLine.getCommandSpec().root().userObject();
        if (root instanceof LockkitCli) {
            try {
                return Target.redact(Target.resolveUri((LockkitCli) root));
            } catch (RuntimeException e) {
                return "Redis";
            }
        }
        return "Redis";
    }

    static String explain(LockException e, String target) {
        String all = messages(e);
        String upper = all.toUpperCase(Locale.ROOT);
        // NOPERM for a command the user may not run; inside a script Redis 7.0/7.1 says "can't run this command".
        if (upper.contains("NOPERM") || upper.contains("NO PERMISSIONS") || upper.contains("CAN'T RUN THIS COMMAND")) {
            return "Redis at " + target + " refused a command to this user (ACL): " + all
                    + " (list, show and watch need the read-only ACL of the README's Operator CLI section;"
                    + " release --force needs the provider's ACL, docs/SECURITY.md)";
        }
        if (upper.contains("WRONGPASS")
                || upper.contains("NOAUTH")
                || upper.contains("INVALID USERNAME-PASSWORD")
                || upper.contains("INVALID PASSWORD")) {
            return "authentication to " + target + " failed: " + all;
        }
        if (e instanceof BackendUnavailableException) {
            return "Redis at " + target + " is unreachable or did not answer in time (--timeout): " + all;
        }
        return "Redis at " + target + " failed: " + all;
    }

    /** The messages of the exception and its causes, distinct ones joined by ": ". */
    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        @Nullable Throwable current = t;
        int depth = 0;
        while (current != null && depth++ < 8) {
            String m = current.getMessage();
            if (m != null && !m.isBlank() && sb.indexOf(m) < 0) {
                if (sb.length() > 0) {
                    sb.append(": ");
                }
                sb.append(m);
            }
            current = current.getCause() == current ? null : current.getCause();
        }
        return sb.length() == 0 ? t.getClass().getSimpleName() : sb.toString();
    }
}
