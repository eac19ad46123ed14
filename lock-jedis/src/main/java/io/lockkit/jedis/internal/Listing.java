package io.lockkit.jedis.internal;

import io.lockkit.BackendUnavailableException;
import io.lockkit.spi.LockProvider.HeldLock;
import io.lockkit.spi.LockProvider.ListPage;
import io.lockkit.spi.LockProvider.LockState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Lists held locks page by page for {@code JedisLockProvider.list}: never {@code KEYS}.
 *
 * <p>Design notes. A page is one {@code SCAN cursor MATCH <pattern> COUNT <page size>} (the
 * pattern from {@link Keys#lockPattern}: the escaped name prefix, so only this key prefix's lock
 * hashes of matching names come back, never their queue keys) and one pipelined round trip of
 * {@code inspect.lua} calls for the keys found (the first sent as EVAL, which teaches a node that
 * lost its script cache within the same round trip), so two round trips per page and memory
 * bounded by the page. Hashes kept only for their last token read as free and are left out. On a
 * Cluster the pages walk the masters one after the other (found with one {@code CLUSTER NODES}
 * on the first page, a third round trip once per listing), each page on one master's connection,
 * so its keys are that node's; a key moved meanwhile is read with a routed call instead. The
 * cursor is text: {@code s <scan cursor>} on one node, {@code c <scan cursor> <node> <node>…} on a
 * Cluster (the current master first, then those left), so it holds no connection and a listing
 * left halfway costs nothing. Thread-safe; failures are Jedis exceptions, for the provider to
 * translate.
 */
public final class Listing {

    private final UnifiedJedis jedis;
    private final Topology topology;
    private final Keys keys;

    public Listing(UnifiedJedis jedis, Topology topology, Keys keys) {
        this.jedis = jedis;
        this.topology = topology;
        this.keys = keys;
    }

    /**
     * One page of held locks whose names start with {@code prefix}.
     *
     * @throws IllegalArgumentException when {@code cursor} is not one this class made
     */
    public ListPage page(String prefix, @Nullable String cursor, int pageSize) {
        ScanParams params = new ScanParams().match(keys.lockPattern(prefix)).count(pageSize);
        ClusterAccess cluster = topology.cluster() ? ClusterAccess.of(jedis) : null;
        if (cluster != null) {
            return clusterPage(cluster, prefix, cursor, params);
        }
        String scanCursor = ScanParams.SCAN_POINTER_START;
        if (cursor != null) {
            String[] parts = cursor.split(" ", -1);
            if (parts.length != 2 || !parts[0].equals("s") || !parts[1].matches("\\d+")) {
                throw new IllegalArgumentException("cursor is not a listing cursor of this provider: '" + cursor + "'");
            }
            scanCursor = parts[1];
        }
        ScanResult<String> scan = jedis.scan(scanCursor, params);
        List<HeldLock> locks;
        try (AbstractPipeline p = jedis.pipelined()) {
            locks = read(p, scan.getResult(), prefix);
        }
        return new ListPage(locks, scan.isCompleteIteration() ? null : "s " + scan.getCursor());
    }

    private ListPage clusterPage(ClusterAccess cluster, String prefix, @Nullable String cursor, ScanParams params) {
        List<String> nodes;
        String scanCursor = ScanParams.SCAN_POINTER_START;
        if (cursor == null) {
            nodes = masters(cluster);
            if (nodes.isEmpty()) {
                return new ListPage(List.of(), null);
            }
        } else {
            String[] parts = cursor.split(" ", -1);
            if (parts.length < 3 || !parts[0].equals("c") || !parts[1].matches("\\d+")) {
                throw new IllegalArgumentException("cursor is not a listing cursor of this provider: '" + cursor + "'");
            }
            scanCursor = parts[1];
            nodes = Arrays.asList(parts).subList(2, parts.length);
        }
        String node = nodes.get(0);
        ConnectionPool pool = cluster.nodes().get().get(node);
        if (pool == null) {
            throw new BackendUnavailableException(
                    null, "the cluster node " + node + " left the cluster during the listing; list again", null);
        }
        ScanResult<String> scan;
        List<HeldLock> locks;
        try (Connection c = pool.getResource()) {
            scan = c.executeCommand(
                    new CommandObject<>(scanArguments(scanCursor, params), BuilderFactory.SCAN_RESPONSE));
            try (Pipeline p = new Pipeline(c, false)) {
                locks = read(p, scan.getResult(), prefix);
            }
        }
        String next;
        if (!scan.isCompleteIteration()) {
            next = "c " + scan.getCursor() + " " + String.join(" ", nodes);
        } else if (nodes.size() > 1) {
            next = "c 0 " + String.join(" ", nodes.subList(1, nodes.size()));
        } else {
            next = null;
        }
        return new ListPage(locks, next);
    }

    private static CommandArguments scanArguments(String cursor, ScanParams params) {
        return new CommandArguments(Protocol.Command.SCAN).add(cursor).addParams(params);
    }

    /** The masters that serve slots, as {@code host:port}, sorted; one {@code CLUSTER NODES}. */
    private static List<String> masters(ClusterAccess cluster) {
        String text;
        try (Connection c = cluster.slotConnection().apply(0)) {
            Object reply = c.executeCommand(new CommandArguments(Protocol.Command.CLUSTER).add("NODES"));
            text = reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
        }
        List<String> masters = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String[] f = line.trim().split(" ", -1);
            // <id> <ip:port@cport[,hostname]> <flags> <master> <ping> <pong> <epoch> <link> <slot>...
            if (f.length > 8
                    && Arrays.asList(f[2].split(",", -1)).contains("master")
                    && !f[2].contains("fail")
                    && !f[2].contains("noaddr")) {
                String address = f[1].split("[@,]", -1)[0];
                masters.add(address);
            }
        }
        masters.sort(null);
        return masters;
    }

    /** Reads the found keys' locks in one pipelined round trip; keeps the held ones named with {@code prefix}. */
    private List<HeldLock> read(AbstractPipeline p, List<String> found, String prefix) {
        List<String> names = new ArrayList<>(found.size());
        List<Response<Object>> replies = new ArrayList<>(found.size());
        for (String key : found) {
            String name = keys.nameOf(key);
            if (name == null || !name.startsWith(prefix)) {
                continue;
            }
            List<String> all = Keys.shared(key);
            names.add(name);
            replies.add(
                    replies.isEmpty()
                            ? Scripts.INSPECT.queueWithText(p, all, List.of())
                            : Scripts.INSPECT.queue(p, all, List.of()));
        }
        if (replies.isEmpty()) {
            return List.of();
        }
        p.sync();
        List<HeldLock> locks = new ArrayList<>(replies.size());
        for (int i = 0; i < replies.size(); i++) {
            Object reply;
            try {
                reply = replies.get(i).get();
            } catch (JedisNoScriptException | JedisRedirectionException e) {
                // A key moved to another node since the scan (resharding): one routed call.
                reply = Scripts.INSPECT.call(jedis, Keys.shared(keys.base(names.get(i))), List.of());
            }
            if (InspectScript.decode(reply) instanceof InspectScript.Held held) {
                locks.add(new HeldLock(names.get(i), state(held)));
            }
        }
        return locks;
    }

    /** A cluster client's pools by {@code host:port} and a connection by slot, of either cluster client type. */
    private record ClusterAccess(Supplier<Map<String, ConnectionPool>> nodes, IntFunction<Connection> slotConnection) {

        @SuppressWarnings("deprecation") // JedisCluster: still a cluster client applications may pass
        static @Nullable ClusterAccess of(UnifiedJedis jedis) {
            if (jedis instanceof RedisClusterClient c) {
                return new ClusterAccess(c::getClusterNodes, c::getConnectionFromSlot);
            }
            if (jedis instanceof redis.clients.jedis.JedisCluster c) {
                return new ClusterAccess(c::getClusterNodes, c::getConnectionFromSlot);
            }
            return null;
        }
    }

    /** The SPI's state of a held lock. */
    public static LockState state(InspectScript.Held held) {
        return new LockState(
                held.holdCounts(),
                held.remainingLease(),
                held.fencingToken(),
                held.waiters(),
                held.claims(),
                held.capacity());
    }
}
