package io.lockkit.jedis.topology;

import io.lockkit.testkit.TestServer;
import io.lockkit.testkit.redis.RedisCommandException;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.builders.SentinelClientBuilder;

/**
 * A Redis Sentinel setup of local {@code redis-server} processes for tests: one master, one replica
 * and one Sentinel monitoring them as {@value #MASTER_NAME} (quorum 1), on free loopback ports,
 * stopped by {@link #close()}. Built from a {@link RedisFixture}'s binary, like {@link RedisCluster}
 * ({@code redis-server --sentinel} needs no separate redis-sentinel package).
 *
 * <pre>{@code
 * try (RedisSentinelSetup sentinel = RedisSentinelSetup.start();
 *      RedisSentinelClient client = sentinel.newClient()) {
 *     client.set("k", "v");
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #master()} and {@link #replica()} ask the Sentinel each time, so they swap
 * after a {@link #failover()}.
 */
// Design notes.
// - Order matters for speed: master, then replica (--replicaof), and the Sentinel only once the replica
//   is in sync. A Sentinel learns replicas from the master's INFO, which it asks for on connecting and
//   then only every 10 s; started earlier it could miss the replica for 10 s.
// - Sentinel rewrites its config file, so the file lives in a temporary directory of ours (deleted on
//   close) and is passed as the first argument, ahead of the fixture's defaults.
// - A Sentinel failover leaves the old master running as a master until the Sentinel converts it about
//   10 s later (+convert-to-slave). failover() does that step itself right after the switch, so the
//   pair is a healthy master and in-sync replica again within a second or two and can fail over again.
public final class RedisSentinelSetup implements TestServer {

    /** The name the Sentinel monitors the master under. */
    public static final String MASTER_NAME = "lockkit-master";
    /** {@code sentinel down-after-milliseconds} unless configured: 1 s. */
    public static final Duration DEFAULT_DOWN_AFTER = Duration.ofSeconds(1);
    /** {@code sentinel failover-timeout} unless configured: 5 s. */
    public static final Duration DEFAULT_FAILOVER_TIMEOUT = Duration.ofSeconds(5);
    /** How long set-up, or a {@link #failover()}, may take unless configured: 30 s. */
    public static final Duration DEFAULT_SETUP_TIMEOUT = Duration.ofSeconds(30);

    private final RedisServer first;
    private final RedisServer second;
    private final RedisServer sentinel;
    private final Path configDir;
    private final Map<String, Path> logs;
    private final Duration setupTimeout;

    private RedisSentinelSetup(
            RedisServer first,
            RedisServer second,
            RedisServer sentinel,
            Path configDir,
            Map<String, Path> logs,
            Duration setupTimeout) {
        this.first = first;
        this.second = second;
        this.sentinel = sentinel;
        this.configDir = configDir;
        this.logs = logs;
        this.setupTimeout = setupTimeout;
    }

    /** Starts a master, a replica and a Sentinel from the default fixture. */
    public static RedisSentinelSetup start() {
        return builder().start();
    }

    /** Options for a setup; each setter validates its argument. */
    public static Builder builder() {
        return new Builder();
    }

    // ---- the nodes ----

    /** The data node the Sentinel names as master now. */
    public RedisServer master() {
        return serverAt(currentMasterAddress());
    }

    /** The data node that is not the master now (the replica, unless a fault test broke it). */
    public RedisServer replica() {
        return master() == first ? second : first;
    }

    /** The Sentinel process. */
    public RedisServer sentinel() {
        return sentinel;
    }

    /** Both data nodes, in the order they were started (initial master first). */
    public List<RedisServer> dataNodes() {
        return List.of(first, second);
    }

    /** The Sentinel addresses, for a Sentinel client. */
    public Set<HostAndPort> sentinels() {
        return Set.of(new HostAndPort(sentinel.host(), sentinel.port()));
    }

    /** The name the master is monitored under, {@value #MASTER_NAME}. */
    public String masterName() {
        return MASTER_NAME;
    }

    /** The Redis version of the nodes, e.g. {@code "7.0.15"} or {@code "6.2.11"}. */
    public String version() {
        return first.version();
    }

    /** What the Sentinel answers to {@code SENTINEL get-master-addr-by-name}. */
    public HostAndPort currentMasterAddress() {
        Object reply = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        if (!(reply instanceof List<?> address) || address.size() != 2) {
            throw new IllegalStateException("the Sentinel does not know " + MASTER_NAME + ": " + reply);
        }
        return new HostAndPort(String.valueOf(address.get(0)), Integer.parseInt(String.valueOf(address.get(1))));
    }

    // ---- clients ----

    /**
     * A new Sentinel client for {@value #MASTER_NAME} that the caller owns and closes: 2 s connect
     * and socket timeouts towards the data nodes and the Sentinel, and a pool like
     * {@code JedisLockProvider}'s own.
     */
    public RedisSentinelClient newClient() {
        return clientBuilder().build();
    }

    /** A builder preset like {@link #newClient()}, for tests that need other settings. */
    public SentinelClientBuilder<RedisSentinelClient> clientBuilder() {
        return RedisSentinelClient.builder()
                .masterName(MASTER_NAME)
                .sentinels(sentinels())
                .sentinelClientConfig(NodeSupport.clientConfig())
                .clientConfig(NodeSupport.clientConfig())
                .poolConfig(NodeSupport.poolConfig());
    }

    // ---- faults ----

    /**
     * Promotes the replica: waits until the Sentinel sees it as a healthy replica, sends
     * {@code SENTINEL FAILOVER}, and returns once the Sentinel names it as master and a fresh
     * {@link RedisSentinelClient} agrees. The old master is then made a replica of the new one
     * ({@code REPLICAOF}, what the Sentinel itself would do some 10 s later) and the method waits until
     * it is in sync and known to the Sentinel, so a second failover can follow.
     *
     * @return the new master
     * @throws IllegalStateException when any step does not happen within the setup timeout
     */
    public RedisServer failover() {
        RedisServer oldMaster = master();
        RedisServer newMaster = oldMaster == first ? second : first;
        NodeSupport.await(
                "the Sentinel sees " + NodeSupport.label("replica", newMaster) + " as a healthy replica",
                setupTimeout,
                () -> replicaProblem(newMaster),
                this::logTails);
        NodeSupport.await(
                "the Sentinel accepts SENTINEL FAILOVER",
                setupTimeout,
                () -> {
                    try {
                        sentinel.command("SENTINEL", "FAILOVER", MASTER_NAME);
                        return null;
                    } catch (RedisCommandException e) {
                        // NOGOODSLAVE while its view of the replica is stale, INPROG while a failover runs.
                        return "SENTINEL FAILOVER answered " + e.getMessage();
                    }
                },
                this::logTails);
        HostAndPort expected = new HostAndPort(newMaster.host(), newMaster.port());
        NodeSupport.await(
                "the Sentinel names " + expected + " as master",
                setupTimeout,
                () -> {
                    HostAndPort now = currentMasterAddress();
                    return now.equals(expected) ? null : "it names " + now;
                },
                this::logTails);
        NodeSupport.await(
                "a new Sentinel client connects to " + expected,
                setupTimeout,
                () -> {
                    try (RedisSentinelClient client = newClient()) {
                        HostAndPort seen = client.getCurrentMaster();
                        return expected.equals(seen) ? null : "the client's master is " + seen;
                    }
                },
                this::logTails);
        oldMaster.command("REPLICAOF", newMaster.host(), Integer.toString(newMaster.port()));
        awaitReplicated(oldMaster, newMaster);
        return newMaster;
    }

    /**
     * Waits until the current replica is in sync with the current master and the Sentinel sees it as
     * a healthy replica, e.g. after a fault test restarted it.
     *
     * @throws IllegalStateException when that does not happen within {@code timeout}
     */
    public void awaitHealthy(Duration timeout) {
        NodeSupport.await(
                "the Sentinel setup is healthy",
                timeout,
                () -> {
                    RedisServer master = master();
                    RedisServer replica = master == first ? second : first;
                    String problem = syncProblem(replica, master);
                    return problem != null ? problem : replicaProblem(replica);
                },
                this::logTails);
    }

    /** Stops the Sentinel and both data nodes and deletes their files. Idempotent. */
    @Override
    public void close() {
        List<RuntimeException> failures = NodeSupport.stopAll(List.of(sentinel, second, first));
        deleteRecursively(configDir);
        if (!failures.isEmpty()) {
            IllegalStateException e = new IllegalStateException("could not stop every process of " + this);
            failures.forEach(e::addSuppressed);
            throw e;
        }
    }

    @Override
    public String toString() {
        return "RedisSentinelSetup[redis " + version() + ", data nodes " + first.port() + "," + second.port()
                + ", sentinel " + sentinel.port() + "]";
    }

    // ---- waiting ----

    private void awaitReplicated(RedisServer replica, RedisServer master) {
        NodeSupport.await(
                NodeSupport.label("replica", replica) + " is in sync with " + NodeSupport.label("master", master)
                        + " and known to the Sentinel",
                setupTimeout,
                () -> {
                    String problem = syncProblem(replica, master);
                    return problem != null ? problem : replicaProblem(replica);
                },
                this::logTails);
    }

    /** Null when {@code replica} reports a live link to {@code master}; else what it reports. */
    private static String syncProblem(RedisServer replica, RedisServer master) {
        Map<String, String> info = NodeSupport.fields(replica.command("INFO", "replication"));
        if (!"slave".equals(info.get("role")) || !String.valueOf(master.port()).equals(info.get("master_port"))) {
            return NodeSupport.label("node", replica) + " reports role:" + info.get("role") + " master_port:"
                    + info.get("master_port");
        }
        if (!"up".equals(info.get("master_link_status"))) {
            return NodeSupport.label("replica", replica) + " reports master_link_status:"
                    + info.get("master_link_status");
        }
        return null;
    }

    /** Null when the Sentinel lists {@code replica} with no flag but "slave" and its link up; else what it lists. */
    private String replicaProblem(RedisServer replica) {
        Object reply = sentinel.command("SENTINEL", "REPLICAS", MASTER_NAME);
        List<Map<String, String>> known = new ArrayList<>();
        if (reply instanceof List<?> list) {
            list.forEach(entry -> known.add(NodeSupport.pairs(entry)));
        }
        for (Map<String, String> r : known) {
            if (String.valueOf(replica.port()).equals(r.get("port"))) {
                if (!"slave".equals(r.get("flags")) || !"ok".equals(r.get("master-link-status"))) {
                    return "the Sentinel lists the replica with flags " + r.get("flags") + ", master-link-status "
                            + r.get("master-link-status");
                }
                return null;
            }
        }
        return "the Sentinel does not list " + NodeSupport.label("replica", replica) + " yet";
    }

    private RedisServer serverAt(HostAndPort address) {
        for (RedisServer node : List.of(first, second)) {
            if (node.port() == address.getPort()) {
                return node;
            }
        }
        throw new IllegalStateException("the Sentinel names " + address + " as master, which is not a node of " + this);
    }

    private String logTails() {
        return NodeSupport.logTails(logs);
    }

    private static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // A temp file left behind is not worth failing a test for.
                }
            });
        } catch (IOException e) {
            // Same.
        }
    }

    /** Options for a {@link RedisSentinelSetup}; each setter validates its argument. Not thread-safe. */
    public static final class Builder {

        private RedisFixture fixture;
        private Duration downAfter = DEFAULT_DOWN_AFTER;
        private Duration failoverTimeout = DEFAULT_FAILOVER_TIMEOUT;
        private Duration setupTimeout = DEFAULT_SETUP_TIMEOUT;

        private Builder() {}

        /**
         * Where the {@code redis-server} binary comes from; e.g.
         * {@code RedisFixture.builder().searchPath("").build()} forces the embedded Redis 6.2. Default:
         * PATH, then the embedded binary.
         */
        public Builder fixture(RedisFixture fixture) {
            this.fixture = Objects.requireNonNull(fixture, "fixture");
            return this;
        }

        /**
         * {@code sentinel down-after-milliseconds}: how long the master may be unreachable before the
         * Sentinel fails it over. Default {@link RedisSentinelSetup#DEFAULT_DOWN_AFTER}.
         *
         * @throws IllegalArgumentException when below 100 ms
         */
        public Builder downAfter(Duration downAfter) {
            this.downAfter = atLeast100ms(downAfter, "downAfter");
            return this;
        }

        /**
         * {@code sentinel failover-timeout}. Default {@link RedisSentinelSetup#DEFAULT_FAILOVER_TIMEOUT}.
         *
         * @throws IllegalArgumentException when below 100 ms
         */
        public Builder failoverTimeout(Duration failoverTimeout) {
            this.failoverTimeout = atLeast100ms(failoverTimeout, "failoverTimeout");
            return this;
        }

        /**
         * How long set-up, and each step of {@link RedisSentinelSetup#failover()}, may take. Default
         * {@link RedisSentinelSetup#DEFAULT_SETUP_TIMEOUT}.
         *
         * @throws IllegalArgumentException when below 100 ms
         */
        public Builder setupTimeout(Duration setupTimeout) {
            this.setupTimeout = atLeast100ms(setupTimeout, "setupTimeout");
            return this;
        }

        /**
         * Starts the master, the replica and the Sentinel, returning once the replica is in sync and
         * the Sentinel knows both.
         *
         * @throws IllegalStateException when no binary is available, the binary is older than 6.2, a
         *     process does not start, or the setup is not ready in time (the message holds the end of
         *     every log); what was started is stopped first
         */
        public RedisSentinelSetup start() {
            RedisFixture f = fixture != null ? fixture : NodeSupport.defaultFixture();
            List<RedisServer> started = new ArrayList<>(3);
            Path configDir = null;
            Map<String, Path> logs = new LinkedHashMap<>();
            try {
                List<String> dataArgs = List.of("--appendonly", "no", "--save", "", "--repl-diskless-sync-delay", "0");
                RedisServer master = NodeSupport.startNode(f, port -> dataArgs);
                started.add(master);
                logs.put(NodeSupport.label("master", master), NodeSupport.logFileOf(master));
                NodeSupport.requireSupportedVersion(master, "RedisSentinelSetup");
                List<String> replicaArgs = new ArrayList<>(dataArgs);
                replicaArgs.addAll(List.of("--replicaof", master.host(), Integer.toString(master.port())));
                RedisServer replica = NodeSupport.startNode(f, port -> replicaArgs);
                started.add(replica);
                logs.put(NodeSupport.label("replica", replica), NodeSupport.logFileOf(replica));
                NodeSupport.await(
                        NodeSupport.label("replica", replica) + " is in sync",
                        setupTimeout,
                        () -> syncProblem(replica, master),
                        () -> NodeSupport.logTails(logs));

                Path dir = Files.createTempDirectory("lockkit-sentinel-");
                configDir = dir;
                RedisServer sentinel = NodeSupport.startNode(
                        f, port -> List.of(writeConfig(dir, port, master).toString(), "--sentinel"));
                started.add(sentinel);
                logs.put(NodeSupport.label("sentinel", sentinel), NodeSupport.logFileOf(sentinel));
                RedisSentinelSetup setup = new RedisSentinelSetup(master, replica, sentinel, dir, logs, setupTimeout);
                NodeSupport.await(
                        "the Sentinel knows the master",
                        setupTimeout,
                        () -> {
                            HostAndPort address = setup.currentMasterAddress();
                            return address.getPort() == master.port() ? null : "it names " + address;
                        },
                        setup::logTails);
                setup.awaitReplicated(replica, master);
                return setup;
            } catch (IOException e) {
                UncheckedIOException failure = new UncheckedIOException("cannot write the Sentinel config file", e);
                NodeSupport.stopAll(started).forEach(failure::addSuppressed);
                deleteRecursively(configDir);
                throw failure;
            } catch (RuntimeException e) {
                NodeSupport.stopAll(started).forEach(e::addSuppressed);
                deleteRecursively(configDir);
                throw e;
            }
        }

        private Path writeConfig(Path dir, int port, RedisServer master) {
            Path file = dir.resolve("sentinel-" + port + ".conf");
            String text = String.join(
                    "\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 1",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfter.toMillis(),
                    "sentinel failover-timeout " + MASTER_NAME + " " + failoverTimeout.toMillis(),
                    "");
            try {
                Files.writeString(file, text, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
            return file;
        }

        private static Duration atLeast100ms(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.toMillis() < 100) {
                throw new IllegalArgumentException(name + " must be at least 100 ms: " + value);
            }
            return value;
        }
    }
}
