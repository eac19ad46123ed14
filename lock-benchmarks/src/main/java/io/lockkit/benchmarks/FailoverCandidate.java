package io.lockkit.benchmarks;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.LeadershipOptions;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.spi.LockProvider;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One candidate JVM of {@link FailoverBenchmarkMain}: campaigns for one name with a library and
 * prints {@code ELECTED <System.nanoTime()>} the moment it is told it leads (and
 * {@code STOPPING <System.nanoTime()>} when its shutdown hook starts). Arguments: the
 * library ({@code lockkit-redis}, {@code spring-redis}, {@code lockkit-postgres}), the backend
 * (a Redis URI or a JDBC URL), the lease in milliseconds or {@code default} (the library's own),
 * the name. Runs until killed, or until it is stopped normally (SIGTERM, or its standard input
 * ends): then a shutdown hook stops campaigning as an application's shutdown does (lockkit:
 * {@link Leadership#close()}, then the factory; Spring: {@code LockRegistryLeaderInitiator.stop()},
 * then the registry and the connection factory once the leader's lock is given back).
 */
public final class FailoverCandidate {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private FailoverCandidate() {}

    public static void main(String[] args) throws Exception {
        String library = args[0];
        String backend = args[1];
        @Nullable Duration lease = args[2].equals("default") ? null : Duration.ofMillis(Long.parseLong(args[2]));
        String name = args[3];
        AutoCloseable running = switch (library) {
            case "lockkit-redis" -> lockkit(JedisLockProvider.create(backend), name, lease);
            case "lockkit-postgres" -> lockkit(JdbcLockProvider.create(backend), name, lease);
            case "spring-redis" -> spring(backend, name, lease);
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(running), "failover-candidate-stop"));
        OUT.println("READY");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (in.readLine() != null) {
                // runs until killed, stopped or until the input ends
            }
        }
        System.exit(0);
    }

    private static void stop(AutoCloseable running) {
        OUT.println("STOPPING " + System.nanoTime());
        try {
            running.close();
            OUT.println("STOPPED");
        } catch (Exception e) {
            OUT.println("STOP FAILED " + e);
        }
    }

    /** lockkit's {@link Leadership}: the lease as given (or the factory's default), everything else at its defaults. */
    private static AutoCloseable lockkit(LockProvider provider, String name, @Nullable Duration lease) {
        DistributedLockFactory factory = DistributedLockFactory.create(provider);
        LeadershipOptions.Builder options =
                LeadershipOptions.builder().onElected(t -> OUT.println("ELECTED " + System.nanoTime()));
        if (lease != null) {
            options.lease(lease);
        }
        Leadership leadership = factory.leadership(name, options.build());
        leadership.start();
        return () -> {
            leadership.close();
            factory.close();
        };
    }

    /**
     * Spring Integration's {@code LockRegistryLeaderInitiator} over a {@code RedisLockRegistry}
     * whose locks expire after the lease (or its default {@code expireAfter}, 60 s), everything
     * else at its defaults (spin lock retried every 100 ms, heartbeat 500 ms, busy wait 50 ms), on
     * a Lettuce connection factory: no Spring context, no Spring Boot. Stopping waits (at most 10
     * s) for the leader's selector thread to give the lock back before the connections close, as
     * a context that stops the initiator before it destroys the connection factory lets it.
     */
    private static AutoCloseable spring(String uri, String name, @Nullable Duration lease) {
        java.net.URI u = java.net.URI.create(uri);
        LettuceConnectionFactory connections = new LettuceConnectionFactory(u.getHost(), u.getPort());
        connections.afterPropertiesSet();
        connections.start();
        RedisLockRegistry registry = lease == null
                ? new RedisLockRegistry(connections, "lockkit-failover-bench")
                : new RedisLockRegistry(connections, "lockkit-failover-bench", lease);
        AtomicBoolean leading = new AtomicBoolean();
        CountDownLatch revoked = new CountDownLatch(1);
        DefaultCandidate candidate =
                new DefaultCandidate("candidate-" + ProcessHandle.current().pid(), name) {
                    @Override
                    public void onGranted(Context ctx) {
                        leading.set(true);
                        OUT.println("ELECTED " + System.nanoTime());
                    }

                    @Override
                    public void onRevoked(Context ctx) {
                        leading.set(false);
                        revoked.countDown();
                    }
                };
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setApplicationEventPublisher(event -> {});
        initiator.start();
        return () -> {
            initiator.stop();
            if (leading.get()) {
                revoked.await(10, TimeUnit.SECONDS);
            }
            initiator.destroy();
            registry.destroy();
            connections.destroy();
        };
    }
}
