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
 * that lockkit's Redis provider holds in one Redis. Run it as {@code java -jar lockkit-cli.jar
 * --help}; {@link #main} exits with one of the {@code EXIT_*} codes.
 *
 * <p>Design notes: every command opens one {@code JedisLockProvider} and a factory over it, uses
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
        description = "Shows and steers the locks lockkit holds in a Redis.",
        subcommands = {
            ListCommand.class,
            ShowCommand.class,
            ReleaseCommand.class,
            WatchCommand.class,
            CommandLine.HelpCommand.class
        },
        synopsisSubcommandLabel = "COMMAND",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done (list and watch: also when no lock is held)",
            "1:show/release: the lock is not held",
            "2:usage error: unknown option, missing argument, malformed --uri",
            "3:Redis unreachable or timed out, authentication failed, or a command refused (ACL)",
            "4:release refused: not confirmed (no --yes and no console to ask on, or not answered y)",
            "5:internal error (a bug: please report it with the stack trace)"
        },
        footerHeading = "%nEnvironment:%n",
        footer = {
            "  LOCKKIT_REDIS_URI       the Redis URI when --uri is not given",
            "  LOCKKIT_REDIS_PASSWORD  the password when --password is not given",
            "                          (keeps it out of ps and shell history)"
        })
public final class LockkitCli implements Runnable {

    /** Done; {@code list} and {@code watch} also when no lock is held. */
    public static final int EXIT_OK = 0;
    /** {@code show} or {@code release}: the lock is not held. */
    public static final int EXIT_NOT_HELD = 1;
    /** Bad command line (picocli's usage code). */
    public static final int EXIT_USAGE = 2;
    /** Redis could not be reached, did not answer in time, refused the credentials or a command. */
    public static final int EXIT_BACKEND = 3;
    /** {@code release} was not confirmed: no {@code --yes} and no console, or the operator said no. */
    public static final int EXIT_REFUSED = 4;
    /** An unexpected failure (a bug). */
    public static final int EXIT_INTERNAL = 5;

    /** The URI used when neither {@code --uri} nor the environment names one. */
    public static final String DEFAULT_URI = "redis://localhost:6379";

    static final String URI_VARIABLE = "LOCKKIT_REDIS_URI";
    static final String PASSWORD_VARIABLE = "LOCKKIT_REDIS_PASSWORD";

    @Option(
            names = "--uri",
            paramLabel = "URI",
            scope = CommandLine.ScopeType.INHERIT,
            description = "redis://[user[:password]@]host[:port][/db] or rediss://... for TLS (default: $"
                    + URI_VARIABLE + ", else " + DEFAULT_URI + ")")
    @Nullable
    String uri;

    @Option(
            names = "--user",
            paramLabel = "USER",
            scope = CommandLine.ScopeType.INHERIT,
            description = "ACL user name (overrides the URI's)")
    @Nullable
    String user;

    @Option(
            names = "--password",
            paramLabel = "PASSWORD",
            arity = "0..1",
            interactive = true,
            prompt = "Redis password: ",
            scope = CommandLine.ScopeType.INHERIT,
            description = "password (overrides the URI's); given without a value it is asked for on the console; else $"
                    + PASSWORD_VARIABLE)
    char @Nullable [] password;

    @Option(
            names = "--key-prefix",
            paramLabel = "PREFIX",
            defaultValue = "lockkit",
            scope = CommandLine.ScopeType.INHERIT,
            description =
                    "the applications' key prefix (JedisLockProvider.Builder.keyPrefix; default: ${DEFAULT-VALUE})")
    String keyPrefix = "lockkit";

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "2s",
            converter = DurationConverter.class,
            scope = CommandLine.ScopeType.INHERIT,
            description =
                    "connect and command timeout, e.g. 500ms, 2s, 1m, PT1.5S; a bare number is seconds (default: ${DEFAULT-VALUE})")
    Duration timeout = Duration.ofSeconds(2);

    @Option(
            names = "--cacert",
            paramLabel = "FILE",
            scope = CommandLine.ScopeType.INHERIT,
            description = "rediss://: PEM file of the CA certificate(s) to trust instead of the JVM's trust store")
    java.nio.file.@Nullable Path caCert;

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
