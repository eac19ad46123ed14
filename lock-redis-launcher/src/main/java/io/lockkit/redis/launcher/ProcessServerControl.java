package io.lockkit.redis.launcher;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} process started by the launcher on 127.0.0.1.
 *
 * <p>Each server gets a temporary working directory ({@code --dir}) that also holds its log (stdout
 * and stderr); persistence is off ({@code --save "" --appendonly no}) and, on Redis 7 and later,
 * {@code DEBUG} is allowed from loopback. Readiness means PING answers and {@code INFO server}
 * reports this process's pid, so a stranger that grabbed the port is never mistaken for ours (a port
 * clash on an automatically chosen port is retried on another port). Stopping asks politely
 * ({@code SHUTDOWN NOSAVE}), then sends SIGTERM and finally SIGKILL, each after a bounded wait; a
 * server that does not even answer SHUTDOWN (e.g. one that was sent SIGSTOP) is killed at once. A
 * JVM shutdown hook kills whatever is still running. Thread-safe: lifecycle methods synchronize on
 * the instance.
 */
final class ProcessServerControl implements ServerControl {

    private static final System.Logger LOG = System.getLogger(RedisLauncher.class.getName());
    private static final Set<ProcessServerControl> LIVE = ConcurrentHashMap.newKeySet();
    private static final int PORT_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 40;
    private static final Duration SHUTDOWN_REPLY_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration EXIT_AFTER_SHUTDOWN = Duration.ofSeconds(5);
    private static final Duration EXIT_AFTER_SIGTERM = Duration.ofSeconds(2);
    private static final Duration EXIT_AFTER_SIGKILL = Duration.ofSeconds(5);
    private static final Duration PORT_RETRY_PAUSE = Duration.ofMillis(100);

    static {
        try {
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(ProcessServerControl::killAllLive, "lockkit-redis-cleanup"));
        } catch (IllegalStateException e) {
            // The JVM is already shutting down; nothing will be started after this anyway.
        }
    }

    private final Path binary;
    private final int majorVersion;
    private final Endpoint endpoint;
    private final Path workDir;
    private final Path logFile;
    private final List<String> command;
    private volatile @Nullable Process process;
    private boolean stopped;

    private ProcessServerControl(Path binary, int majorVersion, int port, Path workDir, List<String> args) {
        this.binary = binary;
        this.majorVersion = majorVersion;
        this.endpoint = Endpoint.loopback(port);
        this.workDir = workDir;
        this.logFile = workDir.resolve("redis.log");
        this.command = commandLine(binary, majorVersion, port, workDir, args);
    }

    /**
     * Starts {@code binary} on a free port, retrying on another port if the chosen one was taken
     * in the meantime.
     *
     * @throws IllegalStateException when the server does not answer in time; the message holds the
     *     end of its log, and no process or file is left behind
     */
    static ProcessServerControl startOnFreePort(
            Path binary, List<String> args, Duration startupTimeout, IntSupplier freePorts) {
        for (int attempt = 1; ; attempt++) {
            try {
                return start(binary, freePorts.getAsInt(), args, startupTimeout, attempt < PORT_ATTEMPTS);
            } catch (PortTaken e) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "port {0} was taken before redis-server bound it; trying another",
                        Integer.toString(e.port));
            }
        }
    }

    /**
     * Starts {@code binary} on {@code port}.
     *
     * @throws IllegalStateException when the server does not answer in time; the message holds the
     *     end of its log, and no process or file is left behind
     */
    static ProcessServerControl start(Path binary, int port, List<String> args, Duration startupTimeout) {
        try {
            return start(binary, port, args, startupTimeout, false);
        } catch (PortTaken e) {
            throw new AssertionError("unreachable: port clashes are reported as IllegalStateException", e);
        }
    }

    private static ProcessServerControl start(
            Path binary, int port, List<String> args, Duration startupTimeout, boolean reportPortTaken)
            throws PortTaken {
        Path workDir;
        try {
            workDir = Files.createTempDirectory("lockkit-redis-" + port + "-");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a working directory for redis-server", e);
        }
        ProcessServerControl control =
                new ProcessServerControl(binary, RedisBinaries.version(binary)[0], port, workDir, args);
        synchronized (control) {
            try {
                control.launchAndAwait(startupTimeout);
            } catch (RuntimeException e) {
                deleteRecursively(workDir);
                throw e;
            } catch (PortTaken e) {
                deleteRecursively(workDir);
                if (reportPortTaken) {
                    throw e;
                }
                throw new IllegalStateException(e.getMessage());
            }
        }
        return control;
    }

    private void launchAndAwait(Duration startupTimeout) throws PortTaken {
        Process started;
        try {
            started = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(logFile.toFile()))
                    .start();
            started.getOutputStream().close();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + binary + ": " + e.getMessage(), e);
        }
        process = started;
        LIVE.add(this);
        long pid = started.pid();
        boolean ready = Readiness.await(
                endpoint, startupTimeout, connection -> isOwnProcess(connection, pid), started::isAlive);
        if (ready) {
            return;
        }
        String outcome = started.isAlive()
                ? "did not answer PING within " + startupTimeout.toMillis() + " ms"
                : "exited with code " + exitCode(started) + " before answering PING";
        stopProcess();
        String tail = logTail();
        String message = "redis-server " + outcome + " on " + endpoint.redactedUri() + "\n  command: "
                + String.join(" ", quoted(command)) + "\n  last lines of its log:\n" + tail;
        if (tail.contains("Address already in use")) {
            throw new PortTaken(endpoint.port(), message);
        }
        throw new IllegalStateException(message);
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    @Override
    public synchronized OptionalLong pid() {
        Process p = process;
        return p == null || stopped ? OptionalLong.empty() : OptionalLong.of(p.pid());
    }

    @Override
    public synchronized void restart(Duration startupTimeout) {
        if (stopped) {
            throw new IllegalStateException("the Redis server at " + endpoint.redactedUri() + " was stopped");
        }
        stopProcess();
        // The port is fixed across restarts. Something may hold it for a moment (a client socket
        // bound to it), so a clash is retried until the startup timeout is spent.
        long deadline = System.nanoTime() + startupTimeout.toNanos();
        while (true) {
            try {
                launchAndAwait(startupTimeout);
                return;
            } catch (PortTaken e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("cannot restart: " + e.getMessage());
                }
                LOG.log(System.Logger.Level.DEBUG, "port {0} is taken; retrying the restart", Integer.toString(e.port));
                sleepQuietly(PORT_RETRY_PAUSE);
            }
        }
    }

    private static void sleepQuietly(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting redis-server", e);
        }
    }

    @Override
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        stopProcess();
        deleteRecursively(workDir);
    }

    @Override
    public String describe() {
        return binary.toString();
    }

    private void stopProcess() {
        Process p = process;
        if (p == null) {
            return;
        }
        List<ProcessHandle> descendants = p.descendants().collect(Collectors.toList());
        boolean unresponsive = false;
        if (p.isAlive()) {
            try (RespConnection connection = RespConnection.open(endpoint, SHUTDOWN_REPLY_TIMEOUT)) {
                // Only ever shut down our own process, never a stranger that holds the port.
                if (isOwnProcess(connection, p.pid())) {
                    // NOW (Redis 7+) skips waiting for lagging replicas; 6.x does not know the flag.
                    if (majorVersion >= 7) {
                        connection.call("SHUTDOWN", "NOSAVE", "NOW");
                    } else {
                        connection.call("SHUTDOWN", "NOSAVE");
                    }
                }
            } catch (InterruptedIOException e) {
                unresponsive = true;
            } catch (IOException | RedisReplyException e) {
                // Usual outcome: the server closes the connection instead of replying.
            }
        }
        if (!unresponsive && !awaitExit(p, EXIT_AFTER_SHUTDOWN)) {
            p.destroy();
            awaitExit(p, EXIT_AFTER_SIGTERM);
        }
        if (p.isAlive()) {
            p.destroyForcibly();
            if (!awaitExit(p, EXIT_AFTER_SIGKILL)) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "redis-server pid {0} did not exit after SIGKILL",
                        Long.toString(p.pid()));
            }
        }
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        LIVE.remove(this);
    }

    private static boolean isOwnProcess(RespConnection connection, long pid) throws IOException {
        return Long.toString(pid).equals(Readiness.infoField(connection.call("INFO", "server"), "process_id"));
    }

    private static boolean awaitExit(Process p, Duration timeout) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    private static String exitCode(Process p) {
        try {
            return Integer.toString(p.exitValue());
        } catch (IllegalThreadStateException e) {
            return "?";
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            List<String> tail = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
            return tail.isEmpty()
                    ? "    (empty)"
                    : tail.stream().map(l -> "    " + l).collect(Collectors.joining("\n"));
        } catch (IOException | RuntimeException e) {
            return "    (log unreadable: " + e + ")";
        }
    }

    static List<String> commandLine(Path binary, int majorVersion, int port, Path workDir, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        // A config file (or "-" for stdin) must come before every --option.
        int options = 0;
        while (options < args.size()
                && (args.get(options).equals("-") || !args.get(options).startsWith("-"))) {
            command.add(args.get(options));
            options++;
        }
        Collections.addAll(
                command,
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                workDir.toString());
        if (majorVersion >= 7) {
            // Redis 7 refuses DEBUG by default; outage tests use it.
            Collections.addAll(command, "--enable-debug-command", "local");
        }
        // Later options win, so the caller can override any default above.
        command.addAll(args.subList(options, args.size()));
        return List.copyOf(command);
    }

    private static List<String> quoted(List<String> command) {
        return command.stream()
                .map(a -> a.isEmpty() || a.contains(" ") ? '"' + a + '"' : a)
                .collect(Collectors.toList());
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "cannot delete {0}: {1}", path, e);
                }
            });
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot delete {0}: {1}", dir, e);
        }
    }

    private static void killAllLive() {
        for (ProcessServerControl control : LIVE) {
            Process p = control.process;
            if (p != null) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            deleteRecursively(control.workDir);
        }
    }

    /** Our redis-server could not bind its port: somebody took it between our check and its start. */
    private static final class PortTaken extends Exception {
        private static final long serialVersionUID = 1L;
        private final int port;

        PortTaken(int port, String message) {
            super(message);
            this.port = port;
        }
    }
}
