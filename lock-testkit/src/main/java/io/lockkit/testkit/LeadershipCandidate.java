package io.lockkit.testkit;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LeadershipOptions;
import io.lockkit.Term;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One instance campaigning in a {@link LeadershipContract} test, and what its callbacks saw, in
 * {@link System#nanoTime()}: each {@code onElected} and {@code onRevoked}, and, when asked for, each
 * term's {@code lost()} as a dependent that the completion of {@code lost()} runs.
 */
final class LeadershipCandidate {
    final String id;
    final Leadership leadership;
    final List<Callback> records = new CopyOnWriteArrayList<>();
    /** How long each term's slow {@code lost()} dependent takes; zero: none is added. */
    private final Duration slowLost;
    /** Per term: counted down when its {@code onRevoked} starts. */
    private final Map<Long, CountDownLatch> revokedStarted = new ConcurrentHashMap<>();

    /**
     * One callback: elected (reason null), revoked, or lost (the term's slow {@code lost()}
     * dependent), its term's token, when it started and ended.
     */
    record Callback(String kind, long token, @Nullable RevocationReason reason, long start, long end) {}

    LeadershipCandidate(String id, DistributedLockFactory client, String name, LeadershipOptions.Builder options) {
        this(id, client, name, options, Duration.ZERO);
    }

    /**
     * A candidate whose terms' {@code lost()} each get a dependent, added in {@code onElected}, that
     * takes {@code slowLost} unless the term's {@code onRevoked} starts meanwhile (then it returns
     * at once): the contract calls {@code onRevoked} only once {@code lost()} has completed, so a
     * dependent that ends after {@code onRevoked} started shows the order broken.
     */
    LeadershipCandidate(
            String id,
            DistributedLockFactory client,
            String name,
            LeadershipOptions.Builder options,
            Duration slowLost) {
        this.id = id;
        this.slowLost = slowLost;
        this.leadership = client.leadership(
                name, options.onElected(this::elected).onRevoked(this::revoked).build());
    }

    private void elected(Term t) {
        record("elected", t.fencingToken(), null, System.nanoTime());
        if (!slowLost.isZero()) {
            var unused = t.lost().thenAccept(r -> slowLost(t.fencingToken(), r));
        }
    }

    private void revoked(Term t, RevocationReason reason) {
        long start = System.nanoTime();
        revokedStarted(t.fencingToken()).countDown();
        record("revoked", t.fencingToken(), reason, start);
    }

    private void slowLost(long token, RevocationReason reason) {
        long start = System.nanoTime();
        try {
            var unused = revokedStarted(token).await(slowLost.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        record("lost", token, reason, start);
    }

    private CountDownLatch revokedStarted(long token) {
        return revokedStarted.computeIfAbsent(token, k -> new CountDownLatch(1));
    }

    private void record(String kind, long token, @Nullable RevocationReason reason, long start) {
        records.add(new Callback(kind, token, reason, start, System.nanoTime()));
    }

    Optional<Callback> find(String kind, long token) {
        return records.stream()
                .filter(r -> r.kind().equals(kind) && r.token() == token)
                .findFirst();
    }

    /** The tokens of the terms this candidate was elected for, in order. */
    List<Long> electedTokens() {
        return records.stream()
                .filter(r -> r.kind().equals("elected"))
                .map(Callback::token)
                .toList();
    }

    @Override
    public String toString() {
        return id + records;
    }
}
