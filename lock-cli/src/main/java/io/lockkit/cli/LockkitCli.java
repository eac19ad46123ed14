package io.lockkit.cli;

import java.io.BufferedOutputStream;
import java.io.Console;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lockkit}, the operator's command line: lists, shows, force-releases and watches the locks
 * that a lockkit provider holds in one backend, chosen by the URI's scheme ({@code redis://},
 * {@code rediss://}, {@code jdbc:postgresql://…}, or a third party's whose artifact is on the class
 * path). Run it as {@code java -jar lockkit-cli.jar --help}; {@link #main} exits with one of the
 * {@code EXIT_*} codes.
 *
 * <p>Design notes: every command opens one provider ({@link Target}) and a factory over it, uses
 * only the factory's inspection calls ({@code inspect}, {@code locks}, {@code forceRelease}), and
 * closes both before it returns; the CLI never acquires, so it cannot disturb a holder except by an
 * explicit {@code release --force}. Output goes through one buffered writer, so {@code list} streams
 * any number of locks page by page in constant memory. Options of this top-level command are
 * inherited: they may stand before or after the subcommand. With {@code --json} every way out
 * writes JSON on stdout: a command's document, an error document ({@link Render#error}) for usage
 * errors, backend failures and bugs (the message goes to stderr as well), and for {@code --help} or
 * {@code --version} the text inside a document.
 */
@Command(
        name = "lockkit",
        mixinStandardHelpOptions = true,
        versionProvider = LockkitCli.Version.class,
        description = "Shows and steers the locks lockkit holds in a Redis or a database.",
        subcommands = {
            ListCommand.class,
            ShowCommand.class,
            ReleaseCommand.class,
            CapacityCommand.class,
            WatchCommand.class,
            CommandLine.HelpCommand.class
        },
        synopsisSubcommandLabel = "COMMAND",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done (list and watch: also when no lock is held)",
            "1:show/release: the lock is not held",
            "2:usage error: unknown option, missing argument, malformed --uri or one no provider takes",
            "3:the backend unreachable or timed out, authentication failed, or a command refused (ACL, grants)",
            "4:release refused: not confirmed (no --yes and no console to ask on, or not answered y)",
            "5:internal error (a bug: please report it with the stack trace)"
        },
        footerHeading = "%nEnvironment:%n",
        footer = {
            "  LOCKKIT_URI             the URI when --uri is not given (else LOCKKIT_REDIS_URI)",
            "  LOCKKIT_REDIS_PASSWORD  Redis: the password when --password is not given",
            "  LOCKKIT_JDBC_PASSWORD   JDBC: the password when --password is not given",
            "                          (they keep it out of ps and shell history)"
        })
public final class LockkitCli implements Runnable {

    /** Done; {@code list} and {@code watch} also when no lock is held. */
    public static final int EXIT_OK = 0;
    /** {@code show} or {@code release}: the lock is not held. */
    public static final int EXIT_NOT_HELD = 1;
    /** Bad command line (picocli's usage code). */
    public static final int EXIT_USAGE = 2;
    /** The backend could not be reached, did not answer in time, refused the credentials or a command. */
    public static final int EXIT_BACKEND = 3;
    /** {@code release} was not confirmed: no {@code --yes} and no console, or the operator said no. */
    public static final int EXIT_REFUSED = 4;
    /** An unexpected failure (a bug). */
    public static final int EXIT_INTERNAL = 5;

    /** The URI used when neither {@code --uri} nor the environment names one. */
    public static final String DEFAULT_URI = "redis://localhost:6379";

    /** The key prefix of Redis when {@code --key-prefix} is not given. */
    static final String DEFAULT_KEY_PREFIX = "lockkit";

    static final String URI_VARIABLE = "LOCKKIT_URI";
    /** The URI variable of the CLI's Redis-only releases, still read after {@link #URI_VARIABLE}. */
    static final String REDIS_URI_VARIABLE = "LOCKKIT_REDIS_URI";

    static final String PASSWORD_VARIABLE = "LOCKKIT_REDIS_PASSWORD";

    /** The password variable of a provider: its password key as an environment variable, {@code LOCKKIT_JDBC_PASSWORD}. */
    static String passwordVariable(String provider) {
        return "LOCKKIT_" + provider.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_") + "_PASSWORD";
    }

    @Option(
            names = "--uri",
            paramLabel = "URI",
            scope = CommandLine.ScopeType.INHERIT,
            description = "redis://[user[:password]@]host[:port][/db], rediss://... for TLS,"
                    + " jdbc:postgresql://host[:port]/db, or a URI another provider on the class path takes"
                    + " (default: $" + URI_VARIABLE + ", else $" + REDIS_URI_VARIABLE + ", else " + DEFAULT_URI + ")")
    @Nullable
    String uri;

    @Option(
            names = "--user",
            paramLabel = "USER",
            scope = CommandLine.ScopeType.INHERIT,
            description = "user name (Redis: the ACL user, overriding the URI's; JDBC: the database user)")
    @Nullable
    String user;

    @Option(
            names = "--password",
            paramLabel = "PASSWORD",
            arity = "0..1",
            interactive = true,
            prompt = "Password: ",
            scope = CommandLine.ScopeType.INHERIT,
            description = "password (overrides the URI's); given without a value it is asked for on the console; else $"
                    + PASSWORD_VARIABLE + " or $LOCKKIT_JDBC_PASSWORD")
    char @Nullable [] password;

    @Option(
            names = "--key-prefix",
            paramLabel = "PREFIX",
            scope = CommandLine.ScopeType.INHERIT,
            description = "Redis: the applications' key prefix (lockkit.redis.key-prefix; default: "
                    + DEFAULT_KEY_PREFIX + ")")
    @Nullable
    String keyPrefix;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            scope = CommandLine.ScopeType.INHERIT,
            description = "connect and command timeout, e.g. 500ms, 2s, 1m, PT1.5S; a bare number is seconds"
                    + " (default: the provider's, 2s for Redis and JDBC)")
    @Nullable
    Duration timeout;

    @Option(
            names = "--cacert",
            paramLabel = "FILE",
            scope = CommandLine.ScopeType.INHERIT,
            description = "rediss://: PEM file of the CA certificate(s) to trust instead of the JVM's trust store")
    java.nio.file.@Nullable Path caCert;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            scope = CommandLine.ScopeType.INHERIT,
            description = "any other key of the provider, e.g. --set lockkit.jdbc.table=app_locks (repeatable)")
    Map<String, String> settings = new java.util.LinkedHashMap<>();

    @Option(
            names = "--json",
            scope = CommandLine.ScopeType.INHERIT,
            description =
                    "write JSON for scripts instead of tables, also on failure (watch: one JSON document per line and refresh)")
    boolean json;

    @Spec
    @Nullable
    CommandSpec spec;

    private final Environment environment;

    LockkitCli(Environment environment) {
        this.environment = environment;
    }

    /**
     * lockkit's loggers (java.util.logging behind System.Logger) at WARNING in the CLI's own JVM: the
     * factory's start-up line is for applications' logs, and the CLI reports failures itself. Held
     * here because java.util.logging keeps its loggers only weakly.
     */
    private static final java.util.logging.Logger LOCKKIT_LOGGER = java.util.logging.Logger.getLogger("io.lockkit");

    /** Runs the command line and exits the JVM with its exit code. */
    public static void main(String[] args) {
        LOCKKIT_LOGGER.setLevel(java.util.logging.Level.WARNING);
        PrintWriter out = new PrintWriter(
                new OutputStreamWriter(
                        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), consoleCharset()),
                false);
        PrintWriter err = new PrintWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), consoleCharset()), true);
        int code = execute(args, out, err, Environment.system());
        out.flush();
        err.flush();
        System.exit(code);
    }

    private static Charset consoleCharset() {
        String name = System.getProperty("stdout.encoding");
        try {
            return name != null ? Charset.forName(name) : Charset.defaultCharset();
        } catch (IllegalArgumentException e) {
            return Charset.defaultCharset();
        }
    }

    /** Runs {@code args} against {@code environment}, writing to {@code out} and {@code err}; returns the exit code. */
    static int execute(String[] args, PrintWriter out, PrintWriter err, Environment environment) {
        CommandLine cli = commandLine(environment);
        cli.setOut(out);
        cli.setErr(err);
        try {
            return cli.execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The command line with this CLI's exception handling and exit codes. */
    static CommandLine commandLine(Environment environment) {
        CommandLine cli = new CommandLine(new LockkitCli(environment));
        cli.setExecutionExceptionHandler(new Failures());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        CommandLine.IParameterExceptionHandler usual = cli.getParameterExceptionHandler();
        cli.setParameterExceptionHandler((ex, args) -> {
            int code = usual.handleParseException(ex, args); // the message and usage on stderr
            if (jsonRequested(args)) {
                Failures.writeJson(ex.getCommandLine().getOut(), code, String.valueOf(ex.getMessage()));
            }
            return code;
        });
        CommandLine.IExecutionStrategy runLast = new CommandLine.RunLast();
        cli.setExecutionStrategy(parseResult -> {
            CommandLine asked = helpAsked(parseResult);
            if (asked != null && ((LockkitCli) cli.getCommand()).json) {
                PrintWriter out = asked.getOut();
                StringBuilder sb = new StringBuilder(4096);
                if (asked.isVersionHelpRequested()) {
                    Render.string(sb.append("{\"version\":"), new Version().getVersion()[0]);
                } else {
                    Render.string(sb.append("{\"usage\":"), asked.getUsageMessage(CommandLine.Help.Ansi.OFF));
                }
                out.print(sb.append("}\n"));
                out.flush();
                return EXIT_OK;
            }
            return runLast.execute(parseResult);
        });
        return cli;
    }

    /** The command whose --help or --version was given, or null. */
    private static @Nullable CommandLine helpAsked(CommandLine.ParseResult parseResult) {
        for (CommandLine c : parseResult.asCommandLineList()) {
            if (c.isUsageHelpRequested() || c.isVersionHelpRequested()) {
                return c;
            }
        }
        return null;
    }

    /** Whether {@code args} hold {@code --json} among the options (a parse that failed has not set it). */
    static boolean jsonRequested(String[] args) {
        for (String arg : args) {
            if (arg.equals("--")) {
                return false;
            }
            if (arg.equals("--json")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void run() {
        // "lockkit" alone: the usage text, and a usage error's exit code.
        throw new CommandLine.ParameterException(
                spec().commandLine(), "Missing command: one of list, show, release, watch");
    }

    private CommandSpec spec() {
        if (spec == null) {
            throw new IllegalStateException("picocli did not inject the command spec");
        }
        return spec;
    }

    Environment environment() {
        return environment;
    }

    /** Opens the provider and factory that a subcommand uses; the caller closes it. */
    Target connect() {
        return Target.open(this);
    }

    /** Where the CLI meets the process it runs in: environment variables and the console. */
    interface Environment {

        @Nullable
        String variable(String name);

        /** The operator's console, or null when there is none (output or input redirected, a script, a test). */
        @Nullable
        Prompt console();

        /** The real process: {@link System#getenv(String)} and {@link System#console()}. */
        static Environment system() {
            return new Environment() {
                @Override
                public @Nullable String variable(String name) {
                    return System.getenv(name);
                }

                @Override
                @SuppressWarnings("SystemConsoleNull") // a non-null console is checked with isTerminal() (JDK 22+)
                public @Nullable Prompt console() {
                    Console console = System.console();
                    return console == null || !isTerminal(console) ? null : prompt -> console.readLine("%s", prompt);
                }
            };
        }

        /**
         * Whether the console is a terminal: from JDK 22 on {@link System#console()} also returns a
         * console when input and output are redirected, and {@code Console.isTerminal()} (22+) tells
         * the two apart; before 22 a console is always a terminal.
         */
        private static boolean isTerminal(Console console) {
            try {
                return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
            } catch (NoSuchMethodException e) {
                return true;
            } catch (ReflectiveOperationException | RuntimeException e) {
                return false;
            }
        }

        /** Variables from {@code variables}, and the given console (null: none). */
        static Environment of(Map<String, String> variables, @Nullable Prompt console) {
            return new Environment() {
                @Override
                public @Nullable String variable(String name) {
                    return variables.get(name);
                }

                @Override
                public @Nullable Prompt console() {
                    return console;
                }
            };
        }
    }

    /** Asks the operator a question on the console. */
    @FunctionalInterface
    interface Prompt {
        /** The line answered, or null at end of input. */
        @Nullable
        String ask(String question);
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = LockkitCli.class.getPackage().getImplementationVersion();
            return new String[] {"lockkit " + (v != null ? v : "(development build)")};
        }
    }
}
