package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The in-JVM backend through its SPI, on a fake clock: leases that lapse exactly at their end,
 * reentry that never shortens a lease, retry hints that are the lease left, renewal, inspection,
 * force release, wake-ups to every client's subscribers, outages and restarts, and closing.
 */
class LocalLockProviderTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider a = new LocalLockProvider(ticker);
    private final LocalLockProvider b = a.newClient();

    private static LockRequest request(String name, String owner, Duration lease) {
        return new LockRequest(name, owner, lease, Duration.ZERO);
    }

    /** Records what a subscription hears. */
    private static final class Heard implements WakeUpListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void released(String grantee) {
            events.add("released:" + grantee);
        }

        @Override
        public void missedNotifications() {
            events.add("missed");
        }
    }

    @Test
    void aLeaseLapsesExactlyAtItsEnd() {
        Acquisition first = a.tryAcquire(request("l:lapse", "o1", LEASE));
        assertThat(first.isAcquired()).isTrue();
        ticker.advance(LEASE.minusNanos(1));
        Acquisition busy = b.tryAcquire(request("l:lapse", "o2", LEASE));
        assertThat(busy.isAcquired()).isFalse();
        assertThat(busy.retryAfter()).as("the retry hint is the lease left").isEqualTo(Duration.ofNanos(1));
        assertThat(a.inspect("l:lapse")).isPresent();

        ticker.advance(Duration.ofNanos(1));
        assertThat(a.inspect("l:lapse")).as("lapsed at its end").isEmpty();
        Acquisition second = b.tryAcquire(request("l:lapse", "o2", LEASE));
        assertThat(second.isAcquired()).isTrue();
        assertThat(second.fencingToken()).as("tokens increase across a lapse").isGreaterThan(first.fencingToken());
        assertThat(a.release("l:lapse", "o1")).isEqualTo(Release.NOT_HELD);
    }

    @Test
    void tokensIncreaseAcrossNamesAndReentryKeepsTheToken() {
        long t1 = a.tryAcquire(request("l:t1", "o", LEASE)).fencingToken();
        long t2 = b.tryAcquire(request("l:t2", "p", LEASE)).fencingToken();
        assertThat(t1).isPositive();
        assertThat(t2).isEqualTo(t1 + 1);
        assertThat(a.tryAcquire(request("l:t1", "o", LEASE)).fencingToken()).isEqualTo(t1);
    }

    @Test
    void tokensStartWhereTheTestSetsThemAndNeverGoBack() {
        a.startTokensAt((1L << 53) + 1);
        long past53 = b.tryAcquire(request("l:high", "o", LEASE)).fencingToken();
        assertThat(past53).isEqualTo((1L << 53) + 1);
        a.startTokensAt(5);
        assertThat(a.tryAcquire(request("l:high2", "p", LEASE)).fencingToken())
                .as("a lower start leaves the counter alone")
                .isEqualTo(past53 + 1);
        assertThat(a.inspect("l:high")).map(LockState::fencingToken).contains(past53);
        assertThatThrownBy(() -> a.startTokensAt(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("next");
    }

    @Test
    void theLastTokenIsLongMaxValueAndTheNextAcquisitionFailsInsteadOfWrapping() {
        a.startTokensAt(Long.MAX_VALUE);
        assertThat(a.tryAcquire(request("l:max", "o", LEASE)).fencingToken()).isEqualTo(Long.MAX_VALUE);
        assertThat(a.tryAcquire(request("l:max", "o", LEASE)).fencingToken())
                .as("reentry keeps the last token")
                .isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> b.tryAcquire(request("l:after-max", "p", LEASE)))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("used up");
    }

    @Test
    void reentryWithAShorterLeaseKeepsTheLongerOneAndALongerOneExtendsIt() {
        a.tryAcquire(request("l:reentry", "o", LEASE));
        ticker.advance(Duration.ofSeconds(1));
        a.tryAcquire(request("l:reentry", "o", Duration.ofSeconds(2)));
        assertThat(a.inspect("l:reentry")).map(LockState::remainingLease).contains(Duration.ofSeconds(9));
        a.tryAcquire(request("l:reentry", "o", Duration.ofSeconds(20)));
        assertThat(a.inspect("l:reentry")).map(LockState::remainingLease).contains(Duration.ofSeconds(20));
        assertThat(a.inspect("l:reentry")).map(LockState::holdCounts).contains(Map.of("o", 3));
    }

    @Test
    void eachReentryNeedsItsOwnReleaseAndOnlyTheLastWakesWaiters() {
        Heard heard = new Heard();
        b.subscribe("l:count", heard);
        a.tryAcquire(request("l:count", "o", LEASE));
        a.tryAcquire(request("l:count", "o", LEASE));
        assertThat(a.release("l:count", "someone-else")).isEqualTo(Release.NOT_HELD);
        assertThat(a.release("l:count", "o")).isEqualTo(Release.STILL_HELD);
        assertThat(heard.events).isEmpty();
        assertThat(a.inspect("l:count")).map(LockState::holdCounts).contains(Map.of("o", 1));
        assertThat(a.release("l:count", "o")).isEqualTo(Release.RELEASED);
        assertThat(heard.events).containsExactly("released:null");
        assertThat(a.inspect("l:count")).isEmpty();
        assertThat(a.release("l:count", "o")).isEqualTo(Release.NOT_HELD);
    }

    @Test
    void renewalSetsTheLeaseFromNowAndReportsHoldsItNoLongerHas() {
        a.tryAcquire(request("l:renew", "o", LEASE));
        ticker.advance(Duration.ofSeconds(8));
        Renewal ours = new Renewal("l:renew", "o", Duration.ofSeconds(3));
        Renewal notOurs = new Renewal("l:renew", "p", LEASE);
        Renewal nobodys = new Renewal("l:free", "o", LEASE);
        assertThat(a.renew(List.of(ours, notOurs, nobodys))).containsExactly(notOurs, nobodys);
        assertThat(a.inspect("l:renew")).map(LockState::remainingLease).contains(Duration.ofSeconds(3));
        // A renewal may also shorten: it sets the lease to what it asks.
        ticker.advance(Duration.ofSeconds(3));
        assertThat(a.inspect("l:renew")).isEmpty();
        assertThat(a.renew(List.of(ours))).containsExactly(ours);
    }

    @Test
    void forceReleaseFreesAnyOwnersHoldAndWakesEveryClientsSubscribers() {
        Heard onA = new Heard();
        Heard onB = new Heard();
        a.subscribe("l:force", onA);
        b.subscribe("l:force", onB);
        a.tryAcquire(request("l:force", "o", LEASE));
        assertThat(b.forceRelease("l:force")).isTrue();
        assertThat(onA.events).containsExactly("released:null");
        assertThat(onB.events).containsExactly("released:null");
        assertThat(b.tryAcquire(request("l:force", "p", LEASE)).isAcquired()).isTrue();

        assertThat(a.forceRelease("l:never")).isFalse();
        ticker.advance(LEASE);
        assertThat(a.forceRelease("l:force")).as("a lapsed lease is not held").isFalse();
        assertThat(onA.events).as("no wake-up for a lock that was not held").hasSize(1);
    }

    @Test
    void inspectSaysWhoHoldsHowOftenAndForHowLong() {
        assertThat(a.inspect("l:inspect")).isEmpty();
        a.tryAcquire(request("l:inspect", "o", LEASE));
        ticker.advance(Duration.ofSeconds(4));
        Optional<LockState> state = b.inspect("l:inspect");
        assertThat(state).isPresent();
        assertThat(state.get().holdCounts()).isEqualTo(Map.of("o", 1));
        assertThat(state.get().remainingLease()).isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void aSubscriptionHearsReleasesUntilClosedAndClosingTheLastOneDropsTheName() {
        Heard first = new Heard();
        Heard second = new Heard();
        Subscription s1 = a.subscribe("l:sub", first);
        Subscription s2 = a.subscribe("l:sub", second);
        assertThat(a.subscriptions()).isEqualTo(1);
        a.tryAcquire(request("l:sub", "o", LEASE));
        a.release("l:sub", "o");
        assertThat(first.events).containsExactly("released:null");
        assertThat(second.events).containsExactly("released:null");

        s1.close();
        assertThat(a.subscriptions()).as("one listener is left").isEqualTo(1);
        a.tryAcquire(request("l:sub", "o", LEASE));
        a.release("l:sub", "o");
        assertThat(first.events).hasSize(1);
        assertThat(second.events).hasSize(2);

        s2.close();
        assertThat(a.subscriptions()).isZero();
        s2.close(); // idempotent
        assertThat(a.subscriptions()).isZero();
    }

    @Test
    void aStoppedBackendFailsEveryCallOfEveryClientAndARestartForgetsEveryHold() {
        a.tryAcquire(request("l:outage", "o", LEASE));
        b.stopBackend();
        assertThatThrownBy(() -> a.tryAcquire(request("l:outage", "o", LEASE)))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("l:outage");
        assertThatThrownBy(() -> b.release("l:outage", "o")).isInstanceOf(BackendUnavailableException.class);
        assertThatThrownBy(() -> a.renew(List.of(new Renewal("l:outage", "o", LEASE))))
                .isInstanceOf(BackendUnavailableException.class);
        assertThatThrownBy(() -> a.inspect("l:outage")).isInstanceOf(BackendUnavailableException.class);
        assertThatThrownBy(() -> a.forceRelease("l:outage")).isInstanceOf(BackendUnavailableException.class);

        a.startBackend();
        assertThat(b.inspect("l:outage")).as("forgotten by the restart").isEmpty();
        assertThat(b.tryAcquire(request("l:outage", "p", LEASE)).isAcquired()).isTrue();
    }

    @Test
    void aClosedClientRefusesCallsNamingTheLockButLeavesOtherClientsAndTheirHolds() {
        Heard onA = new Heard();
        Heard onB = new Heard();
        a.subscribe("l:closed", onA);
        b.subscribe("l:closed", onB);
        b.tryAcquire(request("l:closed", "p", LEASE));
        a.close();
        assertThat(a.subscriptions()).isZero();
        assertThatThrownBy(() -> a.tryAcquire(request("l:closed", "o", LEASE)))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed")
                .hasMessageContaining("l:closed");
        assertThatThrownBy(() -> a.subscribe("l:closed", new Heard())).isInstanceOf(LockException.class);
        assertThatThrownBy(() -> a.inspect("l:closed")).isInstanceOf(LockException.class);
        assertThat(b.inspect("l:closed")).map(LockState::holdCounts).contains(Map.of("p", 1));
        assertThat(b.release("l:closed", "p")).isEqualTo(Release.RELEASED);
        assertThat(onA.events).as("a closed client's listeners hear nothing").isEmpty();
        assertThat(onB.events).containsExactly("released:null");
    }

    @Test
    void aNullTickerIsRefusedNamingTheArgument() {
        assertThatThrownBy(() -> new LocalLockProvider(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ticker");
    }

    @Test
    void stoppingAndStartingTheBackendLeavesTheTableUsableFromOtherThreads() throws Exception {
        a.stopBackend();
        java.util.concurrent.CompletableFuture.runAsync(() -> assertThatThrownBy(() -> b.inspect("l:threads"))
                        .isInstanceOf(BackendUnavailableException.class))
                .get(5, java.util.concurrent.TimeUnit.SECONDS);
        a.startBackend();
        assertThat(java.util.concurrent.CompletableFuture.supplyAsync(() ->
                                b.tryAcquire(request("l:threads", "p", LEASE)).isAcquired())
                        .get(5, java.util.concurrent.TimeUnit.SECONDS))
                .isTrue();
    }
}
