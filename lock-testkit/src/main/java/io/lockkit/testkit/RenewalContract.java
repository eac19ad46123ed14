package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Renewal" ({@link LockContractTest.Renewal}): the provider's renew sets the lease of the holds
 * whose owner still holds the lock, and reports every other one lost, alone or in a batch. These
 * tests call the provider directly, with owner ids shaped as the core makes them, since the core's
 * own deadlines would hide a renewal that wrongly succeeds.
 */
abstract class RenewalContract extends ContractGroup {

    RenewalContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void requireExplicitLeases() {
        assume(Capability.EXPLICIT_LEASE); // the tests let short leases lapse
    }

    /** A client part of owner ids, new for each call: {@code <client part>:h1} is a new owner. */
    static String newClient() {
        return Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    static LockRequest request(String name, String owner, Duration lease) {
        return new LockRequest(name, owner, lease, Duration.ZERO);
    }

    /** A provider for raw calls, closed after the test. */
    final LockProvider raw() {
        return closeAfterTest(provider());
    }

    final Duration shortLease() {
        return scaled(Duration.ofMillis(300));
    }

    final Duration longLease() {
        return scaled(Duration.ofSeconds(20));
    }

    /** Takes {@code name} for {@code owner} on {@code p} once its current lease has lapsed; fails after 5 s. */
    final void takeOnceLapsed(LockProvider p, String name, String owner) {
        await("the lapse of the lease on " + name)
                .atMost(scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> p.tryAcquire(request(name, owner, longLease())).isAcquired());
    }

    @Test
    @DisplayName(
            "a renewal by an owner whose lease lapsed and whose lock another owner took is reported lost, and leaves the new holder's lock alone")
    void renewalOfAHoldTakenOverIsReportedLost() throws Exception {
        LockProvider p = raw();
        LockProvider q = raw();
        String name = name();
        String old = newClient() + ":h1";
        String next = newClient() + ":h1";
        assertThat(p.tryAcquire(request(name, old, shortLease())).isAcquired()).isTrue();
        takeOnceLapsed(q, name, next);
        Renewal stale = new Renewal(name, old, longLease());
        assertThat(p.renew(List.of(stale)))
                .as("what renewing the lapsed hold reported lost")
                .containsExactly(stale);
        if (has(Capability.INSPECTION)) {
            assertThat(p.inspect(name).map(s -> s.holdCounts()))
                    .as("the holder after the stale renewal")
                    .contains(Map.of(next, 1));
        }
        assertThat(q.release(name, next).outcome())
                .as("the new holder's release")
                .isEqualTo(Release.Outcome.RELEASED);
    }

    @Test
    @DisplayName(
            "a renewal batch with two owners of one client for one name, the lapsed holder and the one that took the lock since, reports exactly the lapsed one lost, in either order")
    void batchRenewalTellsTwoOwnersOfOneNameApart() {
        // The watchdog's batch can hold both: the lapsed hold is renewed with the next holder's
        // when the backend dropped it (force release, eviction) before the client's deadline.
        LockProvider p = raw();
        String name = name();
        String client = newClient();
        String lapsed = client + ":h1";
        String current = client + ":h2";
        assertThat(p.tryAcquire(request(name, lapsed, shortLease())).isAcquired())
                .isTrue();
        takeOnceLapsed(p, name, current);
        Renewal stale = new Renewal(name, lapsed, longLease());
        Renewal live = new Renewal(name, current, longLease());
        assertThat(p.renew(List.of(stale, live)))
                .as("lost in a renewal of the lapsed hold, then the current one")
                .containsExactly(stale);
        assertThat(p.renew(List.of(live, stale)))
                .as("lost in a renewal of the current hold, then the lapsed one")
                .containsExactly(stale);
        // The same hold twice in a batch: the core never sends it, yet an answer keyed by hold must
        // not turn it into a loss, nor a lost hold's twin into a renewal.
        assertThat(p.renew(List.of(live, live)))
                .as("lost in a renewal of the current hold twice")
                .isEmpty();
        assertThat(p.renew(List.of(stale, live, stale)))
                .as("lost in a renewal of the lapsed hold twice around the current one")
                .isNotEmpty()
                .containsOnly(stale);
        if (has(Capability.INSPECTION)) {
            assertThat(p.inspect(name).map(s -> s.holdCounts()))
                    .as("the holder after the renewals")
                    .contains(Map.of(current, 1));
        }
        assertThat(p.release(name, current).outcome())
                .as("the current holder's release")
                .isEqualTo(Release.Outcome.RELEASED);
        assertThat(p.renew(List.of(live, stale)))
                .as("lost in a renewal of both once the lock is free")
                .containsExactlyInAnyOrder(live, stale);
    }

    @Test
    @DisplayName(
            "a renewal of 250 holds in one call reports exactly the lost ones, wherever they are in the batch, and renews the rest")
    void batchRenewalReportsExactlyTheLostHolds() throws Exception {
        LockProvider p = raw();
        LockProvider other = raw();
        String base = name() + ":";
        String client = newClient();
        String otherClient = newClient();
        int size = 250;
        // Where the lost holds are: at both ends, and around 100 and 128, where a backend may split its batches.
        List<Integer> lostAt = List.of(0, 1, 99, 100, 127, 128, 200, 249);
        List<Renewal> batch = new ArrayList<>();
        List<Renewal> lost = new ArrayList<>();
        List<String> lapsedNames = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String name = base + i;
            String owner = client + ":h" + (i + 1);
            Renewal r = new Renewal(name, owner, scaled(Duration.ofSeconds(60)));
            batch.add(r);
            if (!lostAt.contains(i)) {
                assertThat(p.tryAcquire(request(name, owner, longLease())).isAcquired())
                        .as("taking %s", name)
                        .isTrue();
                continue;
            }
            lost.add(r);
            loseHold(lostAt.indexOf(i) % 6, new Owners(p, client, other, otherClient), name, owner, i, lapsedNames);
        }
        // The first lapsed lock stays untouched; the others are taken over once lapsed (so all have lapsed).
        for (String name : lapsedNames.subList(1, lapsedNames.size())) {
            takeOnceLapsed(other, name, otherClient + ":h0");
        }
        assertThat(p.renew(batch))
                .as("holds reported lost by a renewal of %d (lost at %s)", size, lostAt)
                .containsExactlyInAnyOrderElementsOf(lost);
        for (Renewal r : lost) {
            assertThat(p.renew(List.of(r)))
                    .as("a renewal of %s alone", r.name())
                    .containsExactly(r);
        }
        if (has(Capability.INSPECTION)) {
            for (int i : List.of(2, 98, 101, 129, 248)) {
                assertThat(p.inspect(base + i).orElseThrow().remainingLease())
                        .as(
                                "the lease of %s after its renewal to %s",
                                base + i, batch.get(i).lease())
                        .isGreaterThan(longLease());
            }
        }
        assertThat(p.renew(List.of(batch.get(2))))
                .as("a renewal of one live hold")
                .isEmpty();
    }

    /** The providers and client parts of {@link #batchRenewalReportsExactlyTheLostHolds}. */
    private record Owners(LockProvider p, String client, LockProvider other, String otherClient) {}

    /**
     * Leaves {@code owner}'s hold of {@code name} lost in one of five ways, by {@code way}: 0 never
     * held, 1 released, 2 held by another owner of the same client, 3 held by another client, else
     * held with a short lease (its name goes to {@code lapsedNames}, to lapse).
     */
    private void loseHold(int way, Owners o, String name, String owner, int i, List<String> lapsedNames) {
        switch (way) {
            case 0 -> {} // never held
            case 1 -> { // released
                assertThat(o.p().tryAcquire(request(name, owner, longLease())).isAcquired())
                        .isTrue();
                assertThat(o.p().release(name, owner).outcome()).isEqualTo(Release.Outcome.RELEASED);
            }
            case 2 -> // held by another owner of the same client
                assertThat(o.p().tryAcquire(request(name, o.client() + ":t" + i, longLease()))
                                .isAcquired())
                        .isTrue();
            case 3 -> // held by another client
                assertThat(o.other()
                                .tryAcquire(request(name, o.otherClient() + ":h" + i, longLease()))
                                .isAcquired())
                        .isTrue();
            default -> { // lapsed: left alone, or taken over by another client
                assertThat(o.p().tryAcquire(request(name, owner, shortLease())).isAcquired())
                        .isTrue();
                lapsedNames.add(name);
            }
        }
    }
}
