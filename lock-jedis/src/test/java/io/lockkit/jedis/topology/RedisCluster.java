package io.lockkit.jedis.topology;

import io.lockkit.testkit.TestServer;
import io.lockkit.testkit.redis.RedisCommandException;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.builders.ClusterClientBuilder;

/**
 * A Redis Cluster of local {@code redis-server} processes for tests: N masters (3 by default) with R
 * replicas each (none by default), formed from scratch on free loopback ports and stopped by
 * {@link #close()}. Built from a {@link RedisFixture}'s binary: {@code redis-server} 7 on the PATH
 * when there is one, else the Redis 6.2 bundled with embedded-redis (the default fixture honours
 * {@code -Dlockkit.topology.sources=EMBEDDED} to force the latter).
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start();
 *      RedisClusterClient client = cluster.newClient()) {
 *     client.set("k", "v");
 * }
 * }</pre>
 *
 * <p>Thread-safe: the node list is fixed, and every query asks a live node afresh. Topology queries
 * ({@link #masters()}, {@link #masterFor(int)}, ...) report the view of the first node that answers,
 * so after a failover they follow the cluster rather than the initial layout.
 */
// Design notes.
// - Formation is what redis-cli --cluster create does, minus its prompts: assign slot ranges to the
//   masters (ADDSLOTSRANGE on 7+, ADDSLOTS in chunks on 6.2, which lacks it), give every node its own
//   config epoch so no collision has to be resolved, MEET everyone from the first node, wait until
//   every node knows every other (CLUSTER REPLICATE needs the master to be known), attach replicas,
//   then wait until all nodes agree on one layout and report cluster_state:ok. A master turns "ok"
//   no sooner than 2 s after it started (CLUSTER_WRITABLE_DELAY), so formation takes about 2-3 s.
// - Each node runs in the fixture's fresh temporary working directory, so its nodes-<port>.conf is
//   never reused across runs, but survives RedisServer.restart() (a restarted node keeps its identity,
//   as a real one would).
// - A short node timeout (2 s by default) keeps later failover tests quick; replication to replicas
//   starts at once (repl-diskless-sync-delay 0; Redis 7 otherwise waits 5 s for more replicas).
// - Failures name what was missing and carry the end of every node's log; nodes that were started are
//   stopped before the exception leaves.
public final class RedisCluster implements TestServer {

    /** Number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;
    /** Masters of a cluster unless configured: 3, the fewest Redis Cluster accepts for failover. */
    public static final int DEFAULT_MASTERS = 3;
    /** {@code cluster-node-timeout} unless configured: 2 s, short so failover tests finish quickly. */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(2);
    /** How long formation (or {@link #awaitHealthy(Duration)}) may take unless configured: 30 s. */
    public static final Duration DEFAULT_FORMATION_TIMEOUT = Duration.ofSeconds(30);

    private static final int ADDSLOTS_CHUNK = 1024;

    private final List<RedisServer> nodes;
    private final int masterCount;
    private final int replicasPerMaster;
    private final Map<String, Path> logs;
    private final Duration formationTimeout;

    private RedisCluster(
            List<RedisServer> nodes,
            int masterCount,
            int replicasPerMaster,
            Map<String, Path> logs,
            Duration formationTimeout) {
        this.nodes = List.copyOf(nodes);
        this.masterCount = masterCount;
        this.replicasPerMaster = replicasPerMaster;
        this.logs = logs;
        this.formationTimeout = formationTimeout;
    }

    /** Starts a cluster of {@value #DEFAULT_MASTERS} masters without replicas from the default fixture. */
    public static RedisCluster start() {
        return builder().start();
    }

    /** Options for a cluster; each setter validates its argument. */
    public static Builder builder() {
        return new Builder();
    }

    // ---- the nodes ----

    /** Every node, masters first (in slot order of the initial layout), then replicas; fixed for the cluster's life. */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The nodes that serve slots now, in slot order, as the first answering node sees it. */
    public List<RedisServer> masters() {
        return view().stream()
                .filter(n -> n.isMaster() && !n.slots().isEmpty())
                .sorted(Comparator.comparingInt(n -> n.slots().get(0)[0]))
                .map(n -> server(n.port()))
                .collect(Collectors.toUnmodifiableList());
    }

    /** The nodes that replicate a master now, as the first answering node sees it. */
    public List<RedisServer> replicas() {
        return view().stream()
                .filter(ClusterNode::isReplica)
                .map(n -> server(n.port()))
                .collect(Collectors.toUnmodifiableList());
    }

    /** The {@code host:port} of every node, as seeds for a cluster client. */
    public Set<HostAndPort> seeds() {
        Set<HostAndPort> seeds = new LinkedHashSet<>();
        for (RedisServer node : nodes) {
            seeds.add(new HostAndPort(node.host(), node.port()));
        }
        return Set.copyOf(seeds);
    }

    /** The Redis version of the nodes, e.g. {@code "7.0.15"} or {@code "6.2.11"}. */
    public String version() {
        return nodes.get(0).version();
    }

    /** The cluster node id of {@code node} ({@code CLUSTER MYID}). */
    public String nodeId(RedisServer node) {
        return String.valueOf(requireOwn(node).command("CLUSTER", "MYID"));
    }

    // ---- clients and routing ----

    /**
     * A new client of this cluster that the caller owns and closes: seeded with every node, 2 s
     * connect and socket timeouts, and a pool like {@code JedisLockProvider}'s own.
     */
    public RedisClusterClient newClient() {
        return clientBuilder().build();
    }

    /** A builder preset like {@link #newClient()}, for tests that need other settings (e.g. shorter timeouts). */
    public ClusterClientBuilder<RedisClusterClient> clientBuilder() {
        return RedisClusterClient.builder()
                .nodes(seeds())
                .clientConfig(NodeSupport.clientConfig())
                .poolConfig(NodeSupport.poolConfig());
    }

    /** The hash slot of {@code key} ({@code CLUSTER KEYSLOT}). */
    public int slotOf(String key) {
        Objects.requireNonNull(key, "key");
        return Math.toIntExact((Long) firstAnswering("CLUSTER", "KEYSLOT", key));
    }

    /**
     * The master serving {@code slot} now, as the first answering node sees it.
     *
     * @throws IllegalArgumentException when the slot is outside 0..16383
     * @throws IllegalStateException when no master serves it
     */
    public RedisServer masterFor(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be in 0.." + (SLOTS - 1) + ": " + slot);
        }
        for (ClusterNode n : view()) {
            if (n.isMaster() && n.serves(slot)) {
                return server(n.port());
            }
        }
        throw new IllegalStateException("no master serves slot " + slot + " in the view " + view());
    }

    /** The master serving {@code key} now. */
    public RedisServer masterFor(String key) {
        return masterFor(slotOf(key));
    }

    /**
     * Waits until every node is reachable, reports {@code cluster_state:ok}, knows every other node
     * with no failure or handshake flag, all nodes agree on which master serves which slots and who
     * replicates whom, and every replica's link to its master is up. For use after a fault test
     * restarted or failed over nodes.
     *
     * @throws IllegalStateException when that does not happen within {@code timeout}; the message
     *     says what was still missing and holds the end of every node's log
     */
    public void awaitHealthy(Duration timeout) {
        NodeSupport.await("the cluster is healthy", timeout, this::healthProblem, this::logTails);
    }

    /** Stops every node and deletes its files. Idempotent. */
    @Override
    public void close() {
        List<RuntimeException> failures = NodeSupport.stopAll(nodes);
        if (!failures.isEmpty()) {
            IllegalStateException e = new IllegalStateException("could not stop every node of " + this);
            failures.forEach(e::addSuppressed);
            throw e;
        }
    }

    @Override
    public String toString() {
        return "RedisCluster[" + masterCount + " masters x " + replicasPerMaster + " replicas, redis " + version()
                + ", nodes "
                + nodes.stream().map(n -> Integer.toString(n.port())).collect(Collectors.joining(","))
                + "]";
    }

    // ---- formation ----

    private void form() {
        List<RedisServer> masters = nodes.subList(0, masterCount);
        boolean rangeCommand = NodeSupport.version(version())[0] >= 7;
        for (int i = 0; i < masterCount; i++) {
            int first = SLOTS * i / masterCount;
            int last = SLOTS * (i + 1) / masterCount - 1;
            addSlots(masters.get(i), first, last, rangeCommand);
        }
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        RedisServer first = nodes.get(0);
        for (RedisServer other : nodes.subList(1, nodes.size())) {
            first.command("CLUSTER", "MEET", other.host(), Integer.toString(other.port()));
        }
        if (replicasPerMaster > 0) {
            NodeSupport.await("every node knows every other", formationTimeout, this::meetProblem, this::logTails);
            for (int m = 0; m < masterCount; m++) {
                String masterId = nodeId(masters.get(m));
                for (int r = 0; r < replicasPerMaster; r++) {
                    nodes.get(masterCount + m * replicasPerMaster + r).command("CLUSTER", "REPLICATE", masterId);
                }
            }
        }
        NodeSupport.await("the new cluster is healthy", formationTimeout, this::healthProblem, this::logTails);
    }

    private static void addSlots(RedisServer master, int first, int last, boolean rangeCommand) {
        if (rangeCommand) {
            try {
                master.command("CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
                return;
            } catch (RedisCommandException e) {
                if (!NodeSupport.unknownCommand(e)) {
                    throw e;
                }
            }
        }
        for (int from = first; from <= last; from += ADDSLOTS_CHUNK) {
            int to = Math.min(last, from + ADDSLOTS_CHUNK - 1);
            List<String> args = new ArrayList<>(to - from + 3);
            args.add("CLUSTER");
            args.add("ADDSLOTS");
            for (int slot = from; slot <= to; slot++) {
                args.add(Integer.toString(slot));
            }
            master.command(args.toArray(new String[0]));
        }
    }

    /** Null when every node lists every other node and none is still in handshake; else what is missing. */
    private String meetProblem() {
        for (RedisServer node : nodes) {
            List<ClusterNode> view = ClusterNode.parseAll(node.command("CLUSTER", "NODES"));
            if (view.size() != nodes.size()) {
                return NodeSupport.label("node", node) + " knows " + view.size() + " of " + nodes.size() + " nodes";
            }
            for (ClusterNode n : view) {
                if (n.flags().contains("handshake") || n.flags().contains("noaddr")) {
                    return NodeSupport.label("node", node) + " is still meeting " + n;
                }
            }
        }
        return null;
    }

    /** Null when the cluster is healthy (see {@link #awaitHealthy}); else the first thing that is not. */
    private String healthProblem() {
        String agreed = null;
        RedisServer agreedBy = null;
        for (RedisServer node : nodes) {
            String label = NodeSupport.label("node", node);
            Map<String, String> info = NodeSupport.fields(node.command("CLUSTER", "INFO"));
            if (!"ok".equals(info.get("cluster_state"))) {
                return label + " reports cluster_state:" + info.get("cluster_state");
            }
            if (!Integer.toString(nodes.size()).equals(info.get("cluster_known_nodes"))) {
                return label + " knows " + info.get("cluster_known_nodes") + " of " + nodes.size() + " nodes";
            }
            if (!Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"))) {
                return label + " reports cluster_slots_ok:" + info.get("cluster_slots_ok");
            }
            List<ClusterNode> view = ClusterNode.parseAll(node.command("CLUSTER", "NODES"));
            for (ClusterNode n : view) {
                if (!n.healthy()) {
                    return label + " sees " + n;
                }
            }
            String layout = layout(view);
            if (layout == null) {
                return label + " sees a layout other than " + masterCount + " masters x " + replicasPerMaster
                        + " replicas: " + view;
            }
            if (agreed == null) {
                agreed = layout;
                agreedBy = node;
            } else if (!agreed.equals(layout)) {
                return label + " sees " + layout + " but " + NodeSupport.label("node", agreedBy) + " sees " + agreed;
            }
            if (view.stream().anyMatch(n -> n.myself() && n.isReplica())) {
                Map<String, String> replication = NodeSupport.fields(node.command("INFO", "replication"));
                if (!"up".equals(replication.get("master_link_status"))) {
                    return label + " (a replica) reports master_link_status:" + replication.get("master_link_status");
                }
            }
        }
        return null;
    }

    /**
     * A node's view reduced to what all nodes must agree on (which port serves which slots, and who
     * replicates whom), or null when it does not have the expected number of masters and replicas.
     */
    private String layout(List<ClusterNode> view) {
        Map<String, Integer> portById = new LinkedHashMap<>();
        view.forEach(n -> portById.put(n.id(), n.port()));
        Set<String> entries = new TreeSet<>();
        int masters = 0;
        int replicas = 0;
        for (ClusterNode n : view) {
            if (n.isMaster() && !n.slots().isEmpty()) {
                masters++;
                entries.add(n.port() + " serves " + n.slotText());
            } else if (n.isReplica() && portById.containsKey(n.masterId())) {
                replicas++;
                entries.add(n.port() + " replicates " + portById.get(n.masterId()));
            }
        }
        if (masters != masterCount || replicas != masterCount * replicasPerMaster) {
            return null;
        }
        return String.join(", ", entries);
    }

    private List<ClusterNode> view() {
        return ClusterNode.parseAll(firstAnswering("CLUSTER", "NODES"));
    }

    /** Sends a command to the first node that answers PING, skipping stopped or paused ones. */
    private Object firstAnswering(String... command) {
        RuntimeException failure = null;
        for (RedisServer node : nodes) {
            if (!node.isRunning()) {
                continue;
            }
            try {
                return node.command(command);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        IllegalStateException e = new IllegalStateException(
                "no node of " + this + " answered " + command[0] + " " + (command.length > 1 ? command[1] : ""));
        if (failure != null) {
            e.addSuppressed(failure);
        }
        throw e;
    }

    private RedisServer server(int port) {
        for (RedisServer node : nodes) {
            if (node.port() == port) {
                return node;
            }
        }
        throw new IllegalStateException("port " + port + " is not a node of " + this);
    }

    private RedisServer requireOwn(RedisServer node) {
        if (!nodes.contains(Objects.requireNonNull(node, "node"))) {
            throw new IllegalArgumentException("node " + node + " is not part of " + this);
        }
        return node;
    }

    private String logTails() {
        return NodeSupport.logTails(logs);
    }

    /** One line of {@code CLUSTER NODES}. */
    private record ClusterNode(
            String id, int port, Set<String> flags, String masterId, String linkState, List<int[]> slots) {

        static List<ClusterNode> parseAll(Object reply) {
            List<ClusterNode> list = new ArrayList<>();
            for (String line : String.valueOf(reply).split("\r?\n")) {
                if (!line.isBlank()) {
                    list.add(parse(line.trim()));
                }
            }
            return list;
        }

        // <id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent> <pong-recv> <epoch> <link> <slot>...
        static ClusterNode parse(String line) {
            String[] f = line.split(" ");
            String address = f[1];
            int at = address.indexOf('@');
            String hostPort = at < 0 ? address : address.substring(0, at);
            String portText = hostPort.substring(hostPort.lastIndexOf(':') + 1);
            int port = portText.isEmpty() ? 0 : Integer.parseInt(portText);
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < f.length; i++) {
                String s = f[i];
                if (s.startsWith("[")) {
                    continue; // a slot being migrated or imported
                }
                int dash = s.indexOf('-');
                slots.add(
                        dash < 0
                                ? new int[] {Integer.parseInt(s), Integer.parseInt(s)}
                                : new int[] {
                                    Integer.parseInt(s.substring(0, dash)), Integer.parseInt(s.substring(dash + 1))
                                });
            }
            slots.sort(Comparator.comparingInt(r -> r[0]));
            return new ClusterNode(f[0], port, Set.of(f[2].split(",")), f[3], f[7], List.copyOf(slots));
        }

        boolean isMaster() {
            return flags.contains("master");
        }

        boolean isReplica() {
            return flags.contains("slave");
        }

        boolean myself() {
            return flags.contains("myself");
        }

        boolean healthy() {
            return "connected".equals(linkState)
                    && !flags.contains("fail")
                    && !flags.contains("fail?")
                    && !flags.contains("handshake")
                    && !flags.contains("noaddr");
        }

        boolean serves(int slot) {
            return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
        }

        String slotText() {
            return slots.stream()
                    .map(r -> r[0] == r[1] ? Integer.toString(r[0]) : r[0] + "-" + r[1])
                    .collect(Collectors.joining(","));
        }

        @Override
        public String toString() {
            return id.substring(0, Math.min(8, id.length())) + "@" + port + " " + String.join(",", flags) + " "
                    + linkState + (slots.isEmpty() ? "" : " " + slotText());
        }
    }

    /** Options for a {@link RedisCluster}; each setter validates its argument. Not thread-safe. */
    public static final class Builder {

        private RedisFixture fixture;
        private int masters = DEFAULT_MASTERS;
        private int replicasPerMaster;
        private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
        private Duration formationTimeout = DEFAULT_FORMATION_TIMEOUT;

        private Builder() {}

        /**
         * Where the {@code redis-server} binary comes from ({@link RedisFixture#startLocal}); e.g.
         * {@code RedisFixture.builder().searchPath("").build()} forces the embedded Redis 6.2. Default:
         * PATH, then the embedded binary (see the class comment for the system property).
         */
        public Builder fixture(RedisFixture fixture) {
            this.fixture = Objects.requireNonNull(fixture, "fixture");
            return this;
        }

        /**
         * Number of masters, among which the 16384 slots are split evenly.
         *
         * @throws IllegalArgumentException when not in 1..16
         */
        public Builder masters(int masters) {
            if (masters < 1 || masters > 16) {
                throw new IllegalArgumentException("masters must be in 1..16: " + masters);
            }
            this.masters = masters;
            return this;
        }

        /**
         * Replicas per master. Default 0.
         *
         * @throws IllegalArgumentException when not in 0..4
         */
        public Builder replicasPerMaster(int replicasPerMaster) {
            if (replicasPerMaster < 0 || replicasPerMaster > 4) {
                throw new IllegalArgumentException("replicasPerMaster must be in 0..4: " + replicasPerMaster);
            }
            this.replicasPerMaster = replicasPerMaster;
            return this;
        }

        /**
         * {@code cluster-node-timeout}: how long a node may be unreachable before it is failed over.
         * Default {@link RedisCluster#DEFAULT_NODE_TIMEOUT}.
         *
         * @throws IllegalArgumentException when below 100 ms
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            Objects.requireNonNull(nodeTimeout, "nodeTimeout");
            if (nodeTimeout.toMillis() < 100) {
                throw new IllegalArgumentException("nodeTimeout must be at least 100 ms: " + nodeTimeout);
            }
            this.nodeTimeout = nodeTimeout;
            return this;
        }

        /**
         * How long the cluster may take to form. Default {@link RedisCluster#DEFAULT_FORMATION_TIMEOUT}.
         *
         * @throws IllegalArgumentException when not positive
         */
        public Builder formationTimeout(Duration formationTimeout) {
            Objects.requireNonNull(formationTimeout, "formationTimeout");
            if (formationTimeout.isNegative() || formationTimeout.isZero()) {
                throw new IllegalArgumentException("formationTimeout must be positive: " + formationTimeout);
            }
            this.formationTimeout = formationTimeout;
            return this;
        }

        /**
         * Starts the nodes and forms the cluster, returning once it is healthy (see
         * {@link RedisCluster#awaitHealthy(Duration)}).
         *
         * @throws IllegalStateException when no binary is available, the binary is older than 6.2, a
         *     node does not start, or the cluster does not form in time (the message holds the end of
         *     every node's log); every node started so far is stopped first
         */
        public RedisCluster start() {
            RedisFixture f = fixture != null ? fixture : NodeSupport.defaultFixture();
            int total = masters * (1 + replicasPerMaster);
            List<RedisServer> started = new ArrayList<>(total);
            Map<String, Path> logs = new LinkedHashMap<>();
            try {
                for (int i = 0; i < total; i++) {
                    RedisServer node = NodeSupport.startNode(f, this::nodeArgs);
                    started.add(node);
                    logs.put(NodeSupport.label(i < masters ? "master" : "replica", node), NodeSupport.logFileOf(node));
                    if (i == 0) {
                        NodeSupport.requireSupportedVersion(node, "RedisCluster");
                    }
                }
                RedisCluster cluster = new RedisCluster(started, masters, replicasPerMaster, logs, formationTimeout);
                cluster.form();
                return cluster;
            } catch (RuntimeException e) {
                NodeSupport.stopAll(started).forEach(e::addSuppressed);
                throw e;
            }
        }

        private List<String> nodeArgs(int port) {
            return List.of(
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes-" + port + ".conf",
                    "--cluster-node-timeout",
                    Long.toString(nodeTimeout.toMillis()),
                    "--appendonly",
                    "no",
                    "--save",
                    "",
                    "--repl-diskless-sync-delay",
                    "0");
        }
    }
}
