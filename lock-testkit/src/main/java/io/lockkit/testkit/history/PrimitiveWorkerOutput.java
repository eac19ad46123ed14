package io.lockkit.testkit.history;

import io.lockkit.testkit.history.ClaimHistory.Hold;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the worker JVMs of a {@link PrimitiveHistory} run reported ({@link PrimitiveWorker}'s
 * protocol): their holds, when their loss listeners heard of a loss, the acquisitions that timed
 * out or failed. One per run, fed by every worker's reader thread. Thread-safe.
 */
final class PrimitiveWorkerOutput {

    private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();
    private final Map<Long, Long> lossHeardAt = new ConcurrentHashMap<>();
    private final AtomicInteger acquisitions = new AtomicInteger();
    private final AtomicInteger timeouts = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> deaths = new ConcurrentLinkedQueue<>();
    private final Map<Integer, AtomicInteger> perWorker = new ConcurrentHashMap<>();

    /** Records one protocol line of worker {@code client}. */
    void accept(int client, String[] f) {
        switch (f[0]) {
            case "HOLD" -> {
                holds.add(new Hold(
                        client,
                        Long.parseLong(f[1]),
                        f[2].equals("E"),
                        Integer.parseInt(f[3]),
                        Long.parseLong(f[4]),
                        Long.parseLong(f[5]),
                        Boolean.parseBoolean(f[6]),
                        Outcome.valueOf(f[7])));
                acquisitions.incrementAndGet();
                perWorker.computeIfAbsent(client, c -> new AtomicInteger()).incrementAndGet();
            }
            case "LOST" -> lossHeardAt.putIfAbsent(Long.parseLong(f[1]), Long.parseLong(f[2]));
            case "MISS" -> (f[1].equals("timeout") ? timeouts : failures).incrementAndGet();
            case "DIED" -> deaths.add("worker " + client + ": " + f[1]);
            default -> {
                // READY, BYE and anything newer: nothing to record
            }
        }
    }

    int acquisitions() {
        return acquisitions.get();
    }

    /** Holds reported by worker {@code client} so far. */
    int acquisitionsOf(int client) {
        AtomicInteger n = perWorker.get(client);
        return n == null ? 0 : n.get();
    }

    int timeouts() {
        return timeouts.get();
    }

    int failures() {
        return failures.get();
    }

    /** Worker threads that ended on an unexpected exception, as "worker N: exception class". */
    List<String> deaths() {
        return List.copyOf(deaths);
    }

    List<Hold> holds() {
        return List.copyOf(holds);
    }

    Map<Long, Long> lossHeardAt() {
        return Map.copyOf(lossHeardAt);
    }
}
