package io.lockkit.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * What every subcommand takes from the command line it runs under, declared once and mixed in with
 * picocli's {@code @Mixin}: the top-level {@link LockkitCli} (whose connection options and
 * {@code --json} are inherited, so they may stand before or after the subcommand), the
 * subcommand's own out and err writers, and the positional parameter it takes ({@link Prefix} or
 * {@link Name}; picocli takes a mixin only when it declares an option or a parameter). Not
 * thread-safe: picocli fills one per command instance before {@code call()}.
 */
abstract class CommandContext {

    @Spec(Spec.Target.MIXEE)
    @SuppressWarnings("NullAway.Init") // set by picocli before call()
    CommandSpec command;

    /** The top-level command: its options name the backend; it opens the {@link Target}. */
    LockkitCli cli() {
        CommandSpec parent = command.parent();
        if (parent == null || !(parent.userObject() instanceof LockkitCli cli)) {
            throw new IllegalStateException("a lockkit subcommand runs without its lockkit parent command");
        }
        return cli;
    }

    /** Whether {@code --json} was given, before or after the subcommand. */
    boolean json() {
        return cli().json;
    }

    /** Opens the provider and factory the options name; the caller closes it. */
    Target connect() {
        return cli().connect();
    }

    /** The process's environment variables and console, as the top-level command was given them. */
    LockkitCli.Environment environment() {
        return cli().environment();
    }

    PrintWriter out() {
        return command.commandLine().getOut();
    }

    PrintWriter err() {
        return command.commandLine().getErr();
    }

    /** {@code [PREFIX]}: the lock names a listing covers, all when it is not given. */
    static final class Prefix extends CommandContext {

        @Parameters(
                index = "0",
                arity = "0..1",
                paramLabel = "PREFIX",
                defaultValue = "",
                description = "lock name prefix (default: all)")
        String prefix = "";
    }

    /** {@code NAME}: the one lock a command is about. */
    static final class Name extends CommandContext {

        @Parameters(index = "0", paramLabel = "NAME", description = "the lock's name")
        @SuppressWarnings("NullAway.Init") // set by picocli before call()
        String name;
    }
}
