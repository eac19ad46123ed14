package io.lockkit.testkit.redis;

import io.lockkit.redis.launcher.Endpoint;
import io.lockkit.redis.launcher.Readiness;
import io.lockkit.redis.launcher.RespConnection;
import io.lockkit.redis.launcher.ServerControl;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A running Redis server handed out by {@link RedisFixture}, with a tiny built-in client for
 * setting it up and breaking it in tests. Closing it stops what the fixture started (process or
 * container) and leaves a server reached through an explicit URI alone.
 *
 * <p>Thread-safe: commands may be sent from several threads at once (each uses its own connection),
 * and {@link #restart()} and {@link #stop()} are serialized.
 */
public final class RedisServer implements TestServer {

    private static final Duration RUNNING_PROBE_TIMEOUT = Duration.ofMillis(500);

    private final Source source;
    private final ServerControl control;
    private final Endpoint endpoint;
    private final String uri;
    private final String version;
    private final Duration commandTimeout;
    private final Duration startupTimeout;
    private final List<String> passedOver;
    private final AtomicBoolean stopped = new AtomicBoolean();

    RedisServer(
            Source source,
            ServerControl control,
            String uri,
            Duration commandTimeout,
            Duration startupTimeout,
            List<String> passedOver) {
        this.source = source;
        this.passedOver = List.copyOf(passedOver);
        this.control = control;
        this.endpoint = control.endpoint();
        this.uri = uri;
        this.commandTimeout = commandTimeout;
        this.startupTimeout = startupTimeout;
        this.version =
                Objects.requireNonNullElse(Readiness.infoField(command("INFO", "server"), "redis_version"), "unknown");
    }

    /**
     * The sources tried before this server's, each with why it gave none, e.g. {@code "TESTCONTAINERS:
     * no container runtime found (…)"}; empty when the first source served.
     */
    public List<String> passedOver() {
        return passedOver;
    }

    /** The server's URI, e.g. {@code redis://127.0.0.1:32771}; an explicit URI is returned as given. */
    public String uri() {
        return uri;
    }

    /** The host the server answers on; {@code 127.0.0.1} for servers the fixture started as processes. */
    public String host() {
        return endpoint.host();
    }

    /** The port the server answers on; it stays the same across {@link #restart()}. */
    public int port() {
        return endpoint.port();
    }

    /** Where the server came from. */
    public Source source() {
        return source;
    }

    /** The server's {@code redis_version} from {@code INFO server}, read when it was handed out, e.g. {@code "7.0.15"}. */
    public String version() {
        return version;
    }

    /**
     * The operating-system process id of a server the fixture runs as a local process (for example
     * to send it SIGSTOP); empty for containers, explicit URIs and stopped servers. Changes on restart.
     */
    public OptionalLong pid() {
        return control.pid();
    }

    /**
     * Sends one command on a fresh connection and returns the parsed reply: {@link String} for simple
     * and bulk strings (UTF-8), {@link Long} for integers, {@code null} for nil, an unmodifiable
     * {@link java.util.List} for arrays (error elements inside, e.g. from EXEC, appear as
     * {@link RedisCommandException} values). Each argument is sent as one bulk string, so
     * {@code command("CONFIG", "GET", "port")}.
     *
     * @throws RedisCommandException when the server answers with an error
     * @throws UncheckedIOException when the server cannot be reached or does not answer within the
     *     fixture's command timeout
     * @throws IllegalStateException when this handle was stopped
     */
    public @Nullable Object command(String... args) {
        Objects.requireNonNull(args, "args");
        if (args.length == 0) {
            throw new IllegalArgumentException("args must hold at least the command name");
        }
        if (stopped.get()) {
            throw new IllegalStateException(this + " was stopped");
        }
        try (RespConnection connection = RespConnection.open(endpoint, commandTimeout, RedisCommandException::new)) {
            return connection.call(args);
        } catch (IOException e) {
            throw new UncheckedIOException(args[0] + " to " + endpoint.redactedUri() + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Whether this handle is open and the server answers PING within half a second. A server that
     * was sent SIGSTOP, or one stopped behind the fixture's back, is not running.
     */
    public boolean isRunning() {
        return !stopped.get() && Readiness.pings(endpoint, RUNNING_PROBE_TIMEOUT);
    }

    /**
     * Stops the server and starts it again on the same port with the same arguments, returning once
     * it answers PING; data is lost (persistence is off). Use it to simulate an outage.
     *
     * @throws UnsupportedOperationException for a server reached through an explicit URI
     * @throws IllegalStateException when this handle was stopped, or the server does not come back
     *     within the startup timeout (the message holds the end of its log)
     */
    public synchronized void restart() {
        if (stopped.get()) {
            throw new IllegalStateException(this + " was stopped");
        }
        if (source == Source.EXPLICIT_URI) {
            throw new UnsupportedOperationException("the Redis server at " + endpoint.redactedUri()
                    + " was not started by the fixture (source EXPLICIT_URI), so it cannot be restarted");
        }
        control.restart(startupTimeout);
    }

    /**
     * This server as the backend of the kit's outage tests (see
     * {@link io.lockkit.testkit.LockContractTest#backendControl()}): stop sends
     * {@code SHUTDOWN NOSAVE}, and either start is {@link #restart()}, which comes back without any
     * hold (persistence is off). Empty for a server reached through an explicit URI, which the
     * fixture never stops.
     */
    public Optional<BackendControl> backendControl() {
        if (source == Source.EXPLICIT_URI) {
            return Optional.empty();
        }
        return Optional.of(BackendControl.of(this::shutDownNoSave, this::restart));
    }

    private void shutDownNoSave() {
        try {
            command("SHUTDOWN", "NOSAVE");
        } catch (RuntimeException e) {
            // the server closes the connection instead of answering
        }
    }

    /**
     * Stops the server if the fixture started it ({@code SHUTDOWN NOSAVE}, then SIGTERM, then SIGKILL,
     * each after a bounded wait) and deletes its working directory; a server reached through an
     * explicit URI is left running. Idempotent; never throws for a server that is already gone.
     */
    public synchronized void stop() {
        if (stopped.compareAndSet(false, true)) {
            control.stop();
        }
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "RedisServer[" + source + " " + endpoint.redactedUri() + " redis " + version + "]";
    }
}
