package io.lockkit.cli;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.spi.support.Causes;
import java.io.PrintWriter;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * Turns what a command throws into a message on stderr and an exit code: a bad option value found
 * late is a usage error ({@value LockkitCli#EXIT_USAGE}), any {@link LockException} a backend
 * failure ({@value LockkitCli#EXIT_BACKEND}) explained in the operator's terms (unreachable,
 * authentication, ACL), anything else a bug ({@value LockkitCli#EXIT_INTERNAL}, with its trace).
 * With {@code --json} the failure is also written on stdout as one JSON document
 * ({@link Render#error}), so a script that reads stdout always gets JSON.
 */
final class Failures implements CommandLine.IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, CommandLine.ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        int code;
        String message;
        if (ex instanceof Target.UsageException) {
            code = LockkitCli.EXIT_USAGE;
            message = String.valueOf(ex.getMessage());
            err.println("lockkit: " + message);
            err.println("Try 'lockkit " + commandLine.getCommandName() + " --help'.");
        } else if (ex instanceof LockException) {
            code = LockkitCli.EXIT_BACKEND;
            Target.Resolved target = target(commandLine);
            message = explain((LockException) ex, target == null ? "The backend" : target.at(target.shown()));
            err.println("lockkit: " + message);
        } else {
            code = LockkitCli.EXIT_INTERNAL;
            message = "internal error, please report it with the trace on stderr: " + ex;
            err.println("lockkit: internal error, please report it with this trace:");
            ex.printStackTrace(err);
        }
        if (json(commandLine)) {
            writeJson(commandLine.getOut(), code, message);
        }
        return code;
    }

    /** The error document of {@code code} on {@code out}, flushed. */
    static void writeJson(PrintWriter out, int code, String message) {
        out.print(Render.error(new StringBuilder(256), code, Render.kind(code), message)
                .append('\n'));
        out.flush();
    }

    /** Whether the command line asked for --json. */
    private static boolean json(CommandLine commandLine) {
        Object root = commandLine.getCommandSpec().root().userObject();
        return root instanceof LockkitCli && ((LockkitCli) root).json;
    }

    /** The backend the options name, or null when they cannot say. */
    private static Target.@Nullable Resolved target(CommandLine commandLine) {
        Object root = commandLine.getCommandSpec().root().userObject();
        if (root instanceof LockkitCli) {
            try {
                return Target.resolve((LockkitCli) root);
            } catch (RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /**
     * {@code e} in the operator's terms; {@code at} names the backend and its address without a
     * password ("Redis at redis://cache:6379").
     */
    static String explain(LockException e, String at) {
        String all = messages(e);
        String upper = all.toUpperCase(Locale.ROOT);
        // NOPERM for a command the user may not run; inside a script Redis 7.0/7.1 says "can't run this command".
        if (upper.contains("NOPERM") || upper.contains("NO PERMISSIONS") || upper.contains("CAN'T RUN THIS COMMAND")) {
            return at + " refused a command to this user (ACL): " + all
                    + " (list, show and watch need the read-only ACL of the README's Operator CLI section;"
                    + " release --force needs the provider's ACL, docs/SECURITY.md)";
        }
        if (upper.contains("PERMISSION DENIED")) { // PostgreSQL's 42501: a grant is missing
            return at + " refused a statement to this user (grants): " + all
                    + " (list, show and watch need SELECT on the lock table; release --force needs the grants of"
                    + " docs/jdbc.md)";
        }
        if (upper.contains("WRONGPASS")
                || upper.contains("NOAUTH")
                || upper.contains("INVALID USERNAME-PASSWORD")
                || upper.contains("INVALID PASSWORD")
                || upper.contains("PASSWORD AUTHENTICATION FAILED")
                || upper.contains("ACCESS DENIED FOR USER")) {
            return "authentication to " + at + " failed: " + all;
        }
        if (e instanceof BackendUnavailableException) {
            return at + " is unreachable or did not answer in time (--timeout): " + all;
        }
        return at + " failed: " + all;
    }

    /** The exception's message and what its causes add (the root cause of an unreachable backend). */
    private static String messages(Throwable t) {
        return Causes.describe(t);
    }
}
