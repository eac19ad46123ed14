package io.lockkit.jedis.internal;

import io.lockkit.spi.LockProvider.Renewal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Renews many holds in few round trips: holds go in {@code renew.lua} calls of at most
 * {@value #BATCH} each (on a cluster, one slot's holds per call, since one script's keys must
 * share a slot), and all calls in one pipeline, so one round trip per node.
 *
 * <p>Design notes. Round 1 pipelines every batch. On one node the first batch goes as EVAL, so a
 * node that lost its script cache learns it in that same round trip. A cluster's node may still
 * answer NOSCRIPT (its batches go as EVALSHA), or a redirection (a cluster pipeline does not
 * follow MOVED; a single call does and refreshes the slot map): one single call per round teaches
 * or redirects, the rest go in one more pipeline. Bounded by a few rounds; what is left is sent one
 * by one. A CROSSSLOT answer shows a cluster behind a client type {@link Topology} did not
 * recognize: that batch is renewed hold by hold, and batches are made per slot from then on.
 * Thread-safe; failures are Jedis exceptions, for the provider to translate.
 */
public final class Renewals {

    /** Holds renewed by one script call: bounds how long one call keeps Redis busy (about 0.1 ms). */
    public static final int BATCH = 100;

    private static final int ROUNDS = 4;

    private final UnifiedJedis jedis;
    private final Topology topology;
    private final Keys keys;

    public Renewals(UnifiedJedis jedis, Topology topology, Keys keys) {
        this.jedis = jedis;
        this.topology = topology;
        this.keys = keys;
    }

    /** Renews {@code renewals}; returns those whose owner no longer holds the lock. */
    public List<Renewal> renew(List<Renewal> renewals) {
        List<Renewal> gone = new ArrayList<>();
        List<List<Renewal>> pending = batches(renewals);
        for (int round = 0; round < ROUNDS && !pending.isEmpty(); round++) {
            pending = round(pending, round == ROUNDS - 1, gone);
        }
        return gone;
    }

    /** One pipelined round; returns the batches to send again, adds lost holds to {@code gone}. */
    private List<List<Renewal>> round(List<List<Renewal>> pending, boolean last, List<Renewal> gone) {
        List<Response<Object>> replies = new ArrayList<>(pending.size());
        try (AbstractPipeline p = jedis.pipelined()) {
            for (int i = 0; i < pending.size(); i++) {
                List<Renewal> batch = pending.get(i);
                replies.add(
                        i == 0 && !topology.cluster()
                                ? Scripts.RENEW.queueWithText(p, keys(batch), args(batch))
                                : Scripts.RENEW.queue(p, keys(batch), args(batch)));
            }
            p.sync();
        }
        List<List<Renewal>> retry = new ArrayList<>();
        boolean taught = false;
        for (int i = 0; i < pending.size(); i++) {
            List<Renewal> batch = pending.get(i);
            Object reply;
            try {
                reply = replies.get(i).get();
            } catch (JedisNoScriptException | JedisRedirectionException e) {
                if (taught && !last) {
                    retry.add(batch);
                    continue;
                }
                taught = true;
                reply = Scripts.RENEW.call(jedis, keys(batch), args(batch));
            } catch (JedisDataException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith("CROSSSLOT")) {
                    throw e;
                }
                topology.learnedCluster();
                reply = oneByOne(batch);
            }
            collectLost(batch, RenewScript.decode(reply), gone);
        }
        return retry;
    }

    private static void collectLost(List<Renewal> batch, List<Boolean> renewed, List<Renewal> gone) {
        for (int j = 0; j < batch.size(); j++) {
            if (!renewed.get(j)) {
                gone.add(batch.get(j));
            }
        }
    }

    private List<Object> oneByOne(List<Renewal> batch) {
        List<Object> replies = new ArrayList<>(batch.size());
        for (Renewal r : batch) {
            List<Renewal> one = List.of(r);
            replies.add(((List<?>) Scripts.RENEW.call(jedis, keys(one), args(one))).get(0));
        }
        return replies;
    }

    /** Batches of at most {@value #BATCH} holds; on a cluster each holds one slot's locks only. */
    private List<List<Renewal>> batches(List<Renewal> renewals) {
        List<List<Renewal>> batches = new ArrayList<>();
        if (!topology.cluster()) {
            for (int i = 0; i < renewals.size(); i += BATCH) {
                batches.add(renewals.subList(i, Math.min(renewals.size(), i + BATCH)));
            }
            return batches;
        }
        Map<Integer, List<Renewal>> open = new HashMap<>();
        for (Renewal r : renewals) {
            int slot = JedisClusterCRC16.getSlot(keys.base(r.name()));
            List<Renewal> batch = open.computeIfAbsent(slot, s -> new ArrayList<>());
            batch.add(r);
            if (batch.size() == BATCH) {
                batches.add(batch);
                open.remove(slot);
            }
        }
        batches.addAll(open.values());
        return batches;
    }

    private List<String> keys(List<Renewal> batch) {
        List<String> lockKeys = new ArrayList<>(batch.size());
        for (Renewal r : batch) {
            lockKeys.add(Keys.lock(keys.base(r.name())));
        }
        return lockKeys;
    }

    private static List<String> args(List<Renewal> batch) {
        List<RenewScript.Hold> holds = new ArrayList<>(batch.size());
        for (Renewal r : batch) {
            holds.add(new RenewScript.Hold(r.owner(), r.lease()));
        }
        return RenewScript.encode(holds);
    }
}
