package io.lockkit.testkit.history;

import io.lockkit.testkit.history.ClaimHistory.Hold;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import io.lockkit.testkit.history.MultiLockHistory.Grant;
import io.lockkit.testkit.history.MultiLockHistory.Member;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the worker JVMs of a {@link PrimitiveHistory} run reported ({@link PrimitiveWorker}'s
 * protocol): their holds (or granted multi-locks), when their loss listeners heard of a loss, the
 * acquisitions that timed out or failed. One per run, fed by every worker's reader thread.
 * Thread-safe.
 */
final class PrimitiveWorkerOutput {

    private final List<String> names;
    private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Grant> grants = new ConcurrentLinkedQueue<>();
    private final Map<String, Map<Long, Long>> lossHeardAt = new ConcurrentHashMap<>();
    private final AtomicInteger acquisitions = new AtomicInteger();
    private final AtomicInteger timeouts = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger lostInAcquisition = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> deaths = new ConcurrentLinkedQueue<>();
    private final Map<Integer, AtomicInteger> perWorker = new ConcurrentHashMap<>();

    /** The output of workers that take {@code names} (by index in the protocol's lines). */
    PrimitiveWorkerOutput(List<String> names) {
        this.names = List.copyOf(names);
    }

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
                acquired(client);
            }
            case "MULTI" -> {
                grants.add(grant(client, f));
                acquired(client);
            }
            case "LOST" -> {
                int name = Integer.parseInt(f[3]);
                if (name >= 0 && name < names.size()) { // else not a name of the run's: nothing to check
                    lossHeardAt
                            .computeIfAbsent(names.get(name), n -> new ConcurrentHashMap<>())
                            .putIfAbsent(Long.parseLong(f[1]), Long.parseLong(f[2]));
                }
            }
            case "MISS" ->
                (switch (f[1]) {
                            case "timeout" -> timeouts;
                            case "lost" -> lostInAcquisition;
                            default -> failures;
                        })
                        .incrementAndGet();
            case "DIED" -> deaths.add("worker " + client + ": " + f[1]);
            default -> {
                // READY, BYE and anything newer: nothing to record
            }
        }
    }

    private void acquired(int client) {
        acquisitions.incrementAndGet();
        perWorker.computeIfAbsent(client, c -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * {@code MULTI <start> <end> <asked> <member>...}: the names asked for as indices separated by
     * commas, each member as {@code <index>:<token>:<valid at end>:<outcome>}.
     */
    private Grant grant(int client, String[] f) {
        List<String> asked = new ArrayList<>();
        for (String i : f[3].split(",", -1)) {
            asked.add(names.get(Integer.parseInt(i)));
        }
        List<Member> members = new ArrayList<>();
        for (int i = 4; i < f.length; i++) {
            String[] m = f[i].split(":", -1);
            members.add(new Member(
                    names.get(Integer.parseInt(m[0])),
                    Long.parseLong(m[1]),
                    Boolean.parseBoolean(m[2]),
                    Outcome.valueOf(m[3])));
        }
        return new Grant(client, asked, Long.parseLong(f[1]), Long.parseLong(f[2]), members);
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

    /** Acquisitions that threw a {@code LockLostException}: no acquisition's contract allows it. */
    int lostInAcquisition() {
        return lostInAcquisition.get();
    }

    /** Worker threads that ended on an unexpected exception, as "worker N: exception class". */
    List<String> deaths() {
        return List.copyOf(deaths);
    }

    List<Hold> holds() {
        return List.copyOf(holds);
    }

    List<Grant> grants() {
        return List.copyOf(grants);
    }

    /** Per name: token to when its client's loss listener heard of its loss. */
    Map<String, Map<Long, Long>> lossHeardAt() {
        Map<String, Map<Long, Long>> copy = new HashMap<>();
        lossHeardAt.forEach((name, heard) -> copy.put(name, Map.copyOf(heard)));
        return copy;
    }

    /** Token to when its client's loss listener heard of its loss, for {@code name}. */
    Map<Long, Long> lossHeardAt(String name) {
        return Map.copyOf(lossHeardAt.getOrDefault(name, Map.of()));
    }
}
