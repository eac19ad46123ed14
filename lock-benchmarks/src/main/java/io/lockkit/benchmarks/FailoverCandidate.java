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
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One candidate JVM of {@link FailoverBenchmarkMain}: campaigns for one name with a library and
 * prints {@code ELECTED <System.nanoTime()>} the moment it is told it leads. Arguments: the
 * library ({@code lockkit-redis}, {@code spring-redis}, {@code lockkit-postgres}), the backend
 * (a Redis URI or a JDBC URL), the lease in milliseconds, the name. Runs until killed, or until
 * its standard input ends.
 */
public final class FailoverCandidate {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private FailoverCandidate() {}

    public static void main(String[] args) throws Exception {
        String library = args[0];
        String backend = args[1];
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        String name = args[3];
        AutoCloseable running = switch (library) {
            case "lockkit-redis" -> lockkit(JedisLockProvider.create(backend), name, lease);
            case "lockkit-postgres" -> lockkit(JdbcLockProvider.create(backend), name, lease);
            case "spring-redis" -> spring(backend, name, lease);
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
        OUT.println("READY");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (in.readLine() != null) {
                // runs until killed or until the input ends
            }
        }
        running.close();
        System.exit(0);
    }

    /** lockkit's {@link Leadership}: the lease as given, everything else at its defaults. */
    private static AutoCloseable lockkit(LockProvider provider, String name, Duration lease) {
        DistributedLockFactory factory = DistributedLockFactory.create(provider);
        Leadership leadership = factory.leadership(
                name,
                LeadershipOptions.builder()
                        .lease(lease)
                        .onElected(t -> OUT.println("ELECTED " + System.nanoTime()))
                        .build());
        leadership.start();
        return factory;
    }

    /**
     * Spring Integration's {@code LockRegistryLeaderInitiator} over a {@code RedisLockRegistry}
     * whose locks expire after the lease, everything else at its defaults (spin lock retried every
     * 100 ms, heartbeat 500 ms, busy wait 50 ms), on a Lettuce connection factory: no Spring
     * context, no Spring Boot.
     */
    private static AutoCloseable spring(String uri, String name, Duration lease) {
        java.net.URI u = java.net.URI.create(uri);
        LettuceConnectionFactory connections = new LettuceConnectionFactory(u.getHost(), u.getPort());
        connections.afterPropertiesSet();
        connections.start();
        RedisLockRegistry registry = new RedisLockRegistry(connections, "lockkit-failover-bench", lease);
        DefaultCandidate candidate =
                new DefaultCandidate("candidate-" + ProcessHandle.current().pid(), name) {
                    @Override
                    public void onGranted(Context ctx) {
                        OUT.println("ELECTED " + System.nanoTime());
                    }
                };
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setApplicationEventPublisher(event -> {});
        initiator.start();
        return () -> {
            initiator.stop();
            registry.destroy();
            connections.destroy();
        };
    }
}
