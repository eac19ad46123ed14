package io.lockkit.testkit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.ResourceLockTarget;

/**
 * The base of every contract group: the running test's kit and the helpers the groups' tests use.
 * A group is a package-private abstract class {@code <Group>Contract extends ContractGroup} in a
 * file of its own, declared in {@link LockContractTest} as a {@code @Nested} class with a
 * {@code @DisplayName}; its tests are package-private {@code @Test} methods with a sentence for a
 * display name. Everything a test makes through these helpers (clients, providers handed to
 * {@link #closeAfterTest}, threads) is closed or stopped after the test.
 *
 * <p>Where JUnit's parallel execution is enabled, the groups and their tests may run concurrently
 * (each test has its own kit instance, providers and lock names; none counts what another may
 * touch), each test holding the {@link #BACKEND} resource for reading; a test that stops the
 * backend holds it for writing, alone. Without parallel execution these annotations do nothing.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = ContractGroup.BACKEND, mode = ResourceAccessMode.READ, target = ResourceLockTarget.CHILDREN)
abstract class ContractGroup {

    /**
     * The backend under test as a JUnit resource: read by every test, written by those that stop it
     * ({@code @ResourceLock(value = BACKEND, mode = READ_WRITE)}), which then run with no other test.
     */
    static final String BACKEND = "io.lockkit.testkit.backend";

    /** The watchdog lease of {@link #steadyClient()}, before {@link LockContractTest#timeScale()}. */
    static final Duration STEADY_LEASE = Duration.ofSeconds(60);

    /** The kit of the running test: its hooks and what it closes after the test. */
    final LockContractTest kit;

    private @Nullable Set<Capability> capabilities;

    ContractGroup(LockContractTest kit) {
        this.kit = kit;
    }

    /** A duration multiplied by the kit's {@link LockContractTest#timeScale()}. */
    final Duration scaled(Duration d) {
        return kit.scaled(d);
    }

    /** The default watchdog lease of the kit's clients: short, so renewal is seen quickly. */
    final Duration watchdogLease() {
        return scaled(Duration.ofMillis(1500));
    }

    /** A client over a new provider, with the kit's short watchdog lease; closed after the test. */
    final DistributedLockFactory client() {
        return client(watchdogLease(), e -> {});
    }

    /** A client with the kit's watchdog lease over {@code provider} (a decorator of a new provider); closed after the test. */
    final DistributedLockFactory clientOver(LockProvider provider) {
        return closeAfterTest(DistributedLockFactory.builder(provider)
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease()).build())
                .subscriptionLinger(Duration.ZERO)
                .build());
    }

    /** A client with its own watchdog lease and loss listener; closed after the test. */
    final DistributedLockFactory client(Duration watchdogLease, Consumer<LockLostException> onLost) {
        return closeAfterTest(DistributedLockFactory.builder(provider())
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease).build())
                .onLockLost(onLost)
                .subscriptionLinger(Duration.ZERO)
                .build());
    }

    /**
     * A client with a watchdog lease long enough that no renewal can fall behind on a loaded machine:
     * for tests whose subject is not the lease but what happens while a hold lasts. Closed after the
     * test.
     */
    final DistributedLockFactory steadyClient() {
        return client(scaled(STEADY_LEASE), e -> {});
    }

    /**
     * Whether {@code other} is refused {@code name} while {@code holder} holds it, as the contract
     * promises: exclusion while the holder's lease is valid. Should that lease have run out (a loaded
     * machine or backend can make renewals late), another client may take the name, but only after the
     * holder's hold stopped being valid, and the holder must be told: anything else fails. Returns true
     * when refused, false when the name was taken (and released again) after a reported loss.
     */
    final boolean busyForOther(DistributedLockFactory other, String name, LockHandle holder) {
        Optional<LockHandle> taken = other.tryAcquire(name);
        if (taken.isEmpty()) {
            return true;
        }
        boolean holderValid = holder.isValid();
        Duration leaseLeft = holder.remainingLease();
        taken.get().release();
        if (holderValid) {
            throw new AssertionError("another client took " + name + " while its holder's hold was valid (lease left "
                    + leaseLeft + "): mutual exclusion is broken");
        }
        await("the loss of " + name + " reported to its holder, whose hold another client took")
                .atMost(scaled(Duration.ofSeconds(10)))
                .until(() -> holder.lost().toCompletableFuture().isDone());
        return false;
    }

    /** A new provider of the backend under test; the caller closes it (or hands it to a client, or to {@link #closeAfterTest}). */
    final LockProvider provider() {
        return kit.provider();
    }

    /** Closes {@code client} after the test (before the providers handed to {@link #closeAfterTest(LockProvider)}). */
    final DistributedLockFactory closeAfterTest(DistributedLockFactory client) {
        kit.clients.add(client);
        return client;
    }

    /** Closes {@code provider} after the test, after the clients. */
    final LockProvider closeAfterTest(LockProvider provider) {
        kit.providers.add(provider);
        return provider;
    }

    /** A lock name unique to this test run. */
    final String name() {
        return "kit:" + kit.testName + ":"
                + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    /** Whether the backend has {@code capability}, as {@link LockContractTest#capabilities()} says. */
    final boolean has(Capability capability) {
        if (capabilities == null) {
            capabilities = readCapabilities();
        }
        return capabilities.contains(capability);
    }

    /**
     * The kit's capabilities, as a bounded call: a group's {@code @BeforeEach} asks, where no test
     * timeout reaches, and the answer may take a new provider (a connection to the backend).
     */
    private Set<Capability> readCapabilities() {
        try {
            return BoundedCalls.within(
                    scaled(BoundedCalls.BOUND),
                    "reading the backend's capabilities (LockContractTest.capabilities(), which may make a provider)",
                    kit::capabilities);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Skips the test (visibly, as an assumption) when the backend lacks {@code capability}. */
    final void assume(Capability capability) {
        assumeTrue(has(capability), () -> "the provider declares no " + capability);
    }

    /** Starts a thread that the kit interrupts and joins after the test. */
    final Thread start(String label, Runnable body) {
        Thread t = new Thread(body, "kit-" + label);
        t.setDaemon(true);
        kit.threads.add(t);
        t.start();
        return t;
    }

    /**
     * Runs a call that may wait on a kit thread and returns its result, failing fast when it does
     * not return within {@code bound} (a provider that ignores wait limits must not stall the kit).
     */
    final <T> T returnsWithin(Duration bound, Callable<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread caller = start("bounded-call", () -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(scaled(bound).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw BoundedCalls.stuck("the call", scaled(bound), caller);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    /** Runs every task on a thread of its own, all started at once, and rethrows the first failure; fails after {@code bound}. */
    final void runAll(List<Runnable> tasks, Duration bound) throws Exception {
        List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size(), task -> {
            Thread t = new Thread(task, "kit-task-" + workers.size());
            t.setDaemon(true); // one stuck in a provider call must not keep the JVM from ending
            workers.add(t);
            return t;
        });
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (Runnable task : tasks) {
                futures.add(pool.submit(() -> {
                    go.await();
                    task.run();
                    return null;
                }));
            }
            go.countDown();
            long end = System.nanoTime() + scaled(bound).toNanos();
            for (int i = 0; i < futures.size(); i++) {
                try {
                    futures.get(i).get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception ex ? ex : e;
                } catch (TimeoutException e) {
                    throw stuckTask(i, tasks.size(), scaled(bound), workers);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The failure of {@link #runAll} when task {@code i} had not ended: named by a worker still inside a provider call, if any. */
    private static AssertionError stuckTask(int i, int tasks, Duration bound, List<Thread> workers) {
        String what = "task " + (i + 1) + " of " + tasks;
        for (Thread w : workers) {
            if (w.isAlive() && BoundedCalls.providerFrame(w.getStackTrace()) != null) {
                return BoundedCalls.stuck(what + " (a provider call on " + w.getName() + ")", bound, w);
            }
        }
        return new AssertionError(what + " did not return within " + bound);
    }

    static LockOptions leaseOf(Duration lease) {
        return LockOptions.builder().noWait().lease(lease).build();
    }

    final LockOptions waitFor(Duration wait) {
        return LockOptions.builder().waitAtMost(scaled(wait)).build();
    }

    static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /**
     * Waits until {@code other} can take {@code name} (polling without waiting, so that no retry
     * hint is involved), failing after {@code bound}; releases what it took. Returns the millis
     * it took from {@code sinceNanos}.
     */
    final long freeForOtherWithin(
            DistributedLockFactory other, String name, Duration bound, long sinceNanos, String what) {
        await(what).atMost(scaled(bound)).pollInterval(Duration.ofMillis(20)).until(() -> {
            Optional<LockHandle> h = other.tryAcquire(name);
            h.ifPresent(LockHandle::release);
            return h.isPresent();
        });
        return millisSince(sinceNanos);
    }

    /** The names of every lock {@code p.list} finds under {@code prefix}, page by page (100 entries a page). */
    static java.util.Set<String> listedNames(LockProvider p, String prefix) {
        java.util.Set<String> names = new java.util.HashSet<>();
        String cursor = null;
        do {
            LockProvider.ListPage page = p.list(prefix, cursor, 100);
            page.locks().forEach(h -> names.add(h.name()));
            cursor = page.next();
        } while (cursor != null);
        return names;
    }
}
