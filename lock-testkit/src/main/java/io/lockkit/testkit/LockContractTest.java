package io.lockkit.testkit;

import io.lockkit.DistributedLockFactory;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract every lock backend keeps, as JUnit 5 tests. A backend's test class extends this
 * and hands the kit its backend, a {@link ContractBackend} whose {@code newProvider()} returns a new,
 * independent client of one shared backend on each call: the kit uses several of them to play
 * separate processes.
 *
 * <pre>{@code
 * class MyProviderContractTest extends LockContractTest {
 *     static final MyBackend BACKEND = MyBackend.start();
 *
 *     MyProviderContractTest() {
 *         super(ContractBackend.of(() -> new MyLockProvider(BACKEND.address()), BackendControl.of(BACKEND::stop, BACKEND::start)));
 *     }
 * }
 * }</pre>
 *
 * <p>A backend whose server a {@link ServerExtension} starts gets its {@code ContractBackend} from
 * the extension, as a constructor parameter (see there). A subclass may instead override the hooks
 * themselves (and then calls the no-argument constructor), all optional but the first:
 *
 * <ul>
 *   <li>{@link #newProvider()}: a new client of the backend under test;
 *   <li>{@link #capabilities()}: what the backend can do, by default what its providers declare;
 *       tests of an absent capability are skipped, and the API is checked to refuse it loudly;
 *   <li>{@link #timeScale()}: multiplies every time bound of the kit, for slow backends;
 *   <li>{@link #backendControl()}: stops and starts the backend for the outage tests, which are
 *       skipped without it;
 *   <li>{@link #raiseHoldCount}: how the test of hold counts past 16 bits reaches 32,767 holds, by
 *       default one acquisition at a time;
 *   <li>{@link #startTokensAt}: how the tests of fencing tokens past 2^31 and 2^53 get there; they
 *       are skipped without it.
 * </ul>
 *
 * <p>Every client and provider the kit makes is closed after the test, never during it (a test
 * that closes one says so), and every thread it starts is interrupted and joined. Every call the
 * kit makes ends in bounded time: a test by its timeout, and the kit's own calls outside a test
 * (the closing after it, the capabilities read before it) by a bound of their own; a call that
 * does not return fails the test, naming it. The groups are
 * the {@code @Nested} classes below; each one's tests are in a file of its own,
 * {@code <Group>Contract}.
 */
// A separate thread, so a test stuck in an uninterruptible lock() still ends; the failure then names
// the provider call it was stuck in.
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@ExtendWith(StuckTestCalls.class)
public abstract class LockContractTest {

    /** The backend given to the constructor, which the hooks ask; null when the subclass overrides them. */
    private final @Nullable ContractBackend backend;

    /** A kit whose subclass overrides {@link #newProvider()} and whichever other hooks it needs. */
    protected LockContractTest() {
        this.backend = null;
    }

    /**
     * A kit over {@code backend}: the hooks {@link #newProvider()}, {@link #backendControl()},
     * {@link #raiseHoldCount} and {@link #startTokensAt} ask it (unless the subclass overrides them).
     *
     * @throws IllegalArgumentException when {@code backend} is null
     */
    protected LockContractTest(ContractBackend backend) {
        if (backend == null) {
            throw new IllegalArgumentException("backend must not be null");
        }
        this.backend = backend;
    }

    // ---- hooks ----

    /**
     * A new, independent client of the backend under test (a new connection, as another process would
     * have): by default the constructor's backend's.
     *
     * @throws IllegalStateException when the kit was given no backend and the subclass does not override this
     */
    protected LockProvider newProvider() {
        if (backend == null) {
            throw new IllegalStateException(getClass().getName()
                    + " gives the kit no backend: pass a ContractBackend to LockContractTest's constructor"
                    + " or override newProvider()");
        }
        return backend.newProvider();
    }

    /**
     * What the backend can do; by default what its providers declare, read from the first
     * provider the test made (or, before any, from one made for it and closed after the test).
     */
    protected Set<Capability> capabilities() {
        if (declared == null) {
            providers.add(provider());
        }
        return Objects.requireNonNull(declared, "declared"); // provider() records what it declares
    }

    /** Multiplies every time bound of the kit, for backends slower than a local Redis. */
    protected double timeScale() {
        return 1.0;
    }

    /**
     * Stops and starts the backend for the outage tests; empty skips them. By default the constructor's
     * backend's, else empty.
     */
    protected Optional<BackendControl> backendControl() {
        return backend == null ? Optional.empty() : backend.backendControl();
    }

    /**
     * Raises the hold count of {@code owner}, which holds {@code name} on {@code provider} once, to
     * {@code count}, for the test that counts go past 16 bits. By default with {@code count - 1}
     * reentrant acquisitions, one round trip each (from four threads at once). A backend where
     * 32,768 round trips take too long may override this to write the count into its storage
     * directly (an UPDATE of the lock's row), provided its acquisitions and releases count on from
     * the stored value: the test then takes the count past 2^15 and back with the provider's own
     * calls, which is where a count kept in 16 bits breaks. A constructor's backend is asked first
     * ({@link ContractBackend#writeHoldCount}).
     */
    protected void raiseHoldCount(LockProvider provider, String name, String owner, Duration lease, int count)
            throws InterruptedException {
        if (backend != null && backend.writeHoldCount(name, owner, count)) {
            return;
        }
        ReentrantAcquisitions.raise(provider, name, owner, lease, count, threads, scaled(BoundedCalls.BOUND));
    }

    /**
     * Makes the next fencing token the backend hands out for {@code name}, which nobody holds, at
     * least {@code next} (raising its counter, never lowering it), for the tests of tokens past 2^31
     * and 2^53, and returns true; false skips those tests, visibly. No backend reaches such tokens in
     * a test by acquiring: this is the kit's way to the token counts production reaches after
     * billions of acquisitions (or with tokens from a clock). A backend with one counter for every
     * name may raise that one. By default the constructor's backend's
     * ({@link ContractBackend#writeTokenCounter}), else false.
     */
    protected boolean startTokensAt(String name, long next) {
        return backend != null && backend.writeTokenCounter(name, next);
    }

    // ---- what the running test made, closed after it ----

    final List<DistributedLockFactory> clients = new CopyOnWriteArrayList<>();
    /** Providers the kit made outside a client, closed after the clients. */
    final List<LockProvider> providers = new CopyOnWriteArrayList<>();
    /** Threads the test started, interrupted before the clients close and joined after. */
    final List<Thread> threads = new CopyOnWriteArrayList<>();
    /** The running test method's name, part of every lock name the kit makes. */
    String testName = "test";
    /** What the first provider made in this test declared. */
    private volatile @Nullable Set<Capability> declared;

    @BeforeEach
    void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    /**
     * Interrupts the test's threads, closes its clients (all at once), then its providers, and waits
     * for its threads. Bounded: a close that has not returned within {@link BoundedCalls#BOUND}, or a
     * thread of the test still inside a provider call 10 s after the closes, fails the test naming
     * the call (a provider that leaves a call blocked would otherwise hang the whole run here, where
     * the test's timeout does not reach).
     */
    @AfterEach
    void closeClients() throws InterruptedException {
        BoundedCalls.closeAfterTest(
                clients, providers, threads, scaled(BoundedCalls.BOUND), scaled(Duration.ofSeconds(10)));
    }

    /**
     * A new provider from {@link #newProvider()}, noting what the first one declares; the caller
     * closes it (or hands it to a client that does).
     */
    final LockProvider provider() {
        LockProvider p = newProvider();
        if (declared == null) {
            declared = Set.copyOf(p.capabilities());
        }
        return p;
    }

    /** A duration multiplied by {@link #timeScale()}. */
    final Duration scaled(Duration d) {
        return Duration.ofNanos((long) (d.toNanos() * timeScale()));
    }

    // ---- the contract: one group per @Nested class, its tests in <Group>Contract ----

    @Nested
    @DisplayName("Mutual exclusion under contention")
    class MutualExclusion extends MutualExclusionContract {
        MutualExclusion() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Reentrancy and hold counts")
    class Reentrancy extends ReentrancyContract {
        Reentrancy() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Independent names")
    class Independence extends IndependenceContract {
        Independence() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Lease expiry")
    class Expiry extends ExpiryContract {
        Expiry() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Watchdog renewal")
    class Watchdog extends WatchdogContract {
        Watchdog() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Waiting")
    class Waiting extends WaitingContract {
        Waiting() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Interrupts, wherever in a wait they arrive")
    class Interrupts extends InterruptsContract {
        Interrupts() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Hand-over to a waiter")
    class HandOver extends HandOverContract {
        HandOver() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Fencing tokens")
    class Fencing extends FencingContract {
        Fencing() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Ownership")
    class Ownership extends OwnershipContract {
        Ownership() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Loss notification")
    class LossNotification extends LossNotificationContract {
        LossNotification() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Input validation")
    class Validation extends ValidationContract {
        Validation() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Closing the factory")
    class Closing extends ClosingContract {
        Closing() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("A closed provider")
    class ClosedProvider extends ClosedProviderContract {
        ClosedProvider() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Inspection")
    class Inspection extends InspectionContract {
        Inspection() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Inspection through the factory")
    class OperatorInspection extends OperatorInspectionContract {
        OperatorInspection() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Listing held locks")
    class Listing extends ListingContract {
        Listing() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Declared capabilities")
    class Capabilities extends CapabilitiesContract {
        Capabilities() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Leadership")
    class Leadership extends LeadershipContract {
        Leadership() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Backend outage")
    class Outage extends OutageContract {
        Outage() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Renewal")
    class Renewal extends RenewalContract {
        Renewal() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Asynchronous acquisition")
    class Async extends AsyncContract {
        Async() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Wake-ups")
    class WakeUps extends WakeUpsContract {
        WakeUps() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Several locks at once")
    class MultiLock extends MultiLockContract {
        MultiLock() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Shared holds, through the SPI")
    class SharedHolds extends SharedHoldsContract {
        SharedHolds() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Fair queue, through the SPI")
    class FairQueue extends FairQueueContract {
        FairQueue() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Read/write lock")
    class ReadWrite extends ReadWriteContract {
        ReadWrite() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Semaphore")
    class LeasedSemaphore extends SemaphoreContract {
        LeasedSemaphore() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Fair lock")
    class FairLock extends FairLockContract {
        FairLock() {
            super(LockContractTest.this);
        }
    }
}
