package io.lockkit.testkit.history;

import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What the builders of the worker-JVM histories ({@link LeadershipHistory}, {@link PrimitiveHistory})
 * share: the workers' provider and backend address, the name, the lease, the backend faults and the
 * clean-up after them, the workers' JVM options. Each setter validates its argument. Not
 * thread-safe.
 *
 * @param <B> the concrete builder, returned by each setter
 */
public abstract class WorkerHistoryBuilder<B extends WorkerHistoryBuilder<B>> {

    /** A backend fault: its action returns once it is over (the backend reachable again). */
    record NamedFault(String name, LockHistory.FaultAction action) {}

    private @Nullable Class<? extends Function<String, LockProvider>> provider;
    private @Nullable String address;
    private String name;
    private Duration lease = Duration.ofSeconds(2);
    private final List<NamedFault> backendFaults = new ArrayList<>();
    private Runnable cleanUp = () -> {};
    private List<String> jvmOptions = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");

    WorkerHistoryBuilder(String defaultName) {
        this.name = defaultName;
    }

    /** This builder, as its concrete type. */
    abstract B self();

    /**
     * The workers' provider: {@code factory} (public, with a public no-argument constructor) is
     * given {@code address} in each worker JVM and returns a new provider of the backend.
     */
    public B provider(Class<? extends Function<String, LockProvider>> factory, String address) {
        if (factory == null || address == null) {
            throw new IllegalArgumentException("factory and address must not be null");
        }
        this.provider = factory;
        this.address = address;
        return self();
    }

    /** The name the workers take (each history has its default). */
    public B name(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        this.name = name;
        return self();
    }

    /** The workers' lease (default 2 s); a paused worker stays stopped 1 s longer. */
    public B lease(Duration lease) {
        if (lease == null || lease.toMillis() < 100) {
            throw new IllegalArgumentException("lease must be at least 100 ms, was " + lease);
        }
        this.lease = lease;
        return self();
    }

    /** Adds a backend fault; {@code action} returns once the backend is reachable again. */
    public B backendFault(String name, LockHistory.FaultAction action) {
        if (name == null || name.isBlank() || action == null) {
            throw new IllegalArgumentException("a fault needs a name and an action");
        }
        backendFaults.add(new NamedFault(name, action));
        return self();
    }

    /** Run after each backend fault and at the end, e.g. to resume a paused server (default: nothing). */
    public B cleanUp(Runnable cleanUp) {
        if (cleanUp == null) {
            throw new IllegalArgumentException("cleanUp must not be null");
        }
        this.cleanUp = cleanUp;
        return self();
    }

    /** JVM options of the workers (default: serial GC, C1 only, small stacks: quick to start, light to run). */
    public B jvmOptions(List<String> options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        this.jvmOptions = List.copyOf(options);
        return self();
    }

    /** Fails unless {@link #provider} was set; for {@code build()}. */
    void requireProvider() {
        if (provider == null || address == null) {
            throw new IllegalArgumentException("provider(...) must be set");
        }
    }

    /** The arguments every worker takes: {@code name}, {@code lease-ms}, {@code provider}. */
    Map<String, String> workerArguments() {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("name", name);
        args.put("lease-ms", Long.toString(lease.toMillis()));
        args.put("provider", Objects.requireNonNull(provider, "provider").getName());
        return args;
    }

    String address() {
        return Objects.requireNonNull(address, "address");
    }

    String name() {
        return name;
    }

    Duration lease() {
        return lease;
    }

    List<NamedFault> backendFaults() {
        return List.copyOf(backendFaults);
    }

    Runnable cleanUpAction() {
        return cleanUp;
    }

    List<String> jvmOptions() {
        return jvmOptions;
    }

    static Duration positive(@Nullable Duration d, String argument) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(argument + " must be positive, was " + d);
        }
        return d;
    }
}
