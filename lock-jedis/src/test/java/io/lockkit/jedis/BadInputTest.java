package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.support.Closer;
import io.lockkit.jedis.support.FakeServer;
import io.lockkit.jedis.support.RedisState;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.SslOptions;

/**
 * Bad input of every kind, against a Redis of this class's own: each case gets an exception that
 * names the problem, and after each case Redis holds no key and no subscription that the case
 * made (fence keys of valid locks are kept {@value #FENCE_RETENTION_MILLIS} ms here, and awaited).
 * Validation failures must not reach Redis at all: the server's script-call counter stays put.
 */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Bad input gets a clear exception and leaves nothing behind in Redis")
class BadInputTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final long FENCE_RETENTION_MILLIS = 200;
    private static final Duration FENCE_RETENTION = Duration.ofMillis(FENCE_RETENTION_MILLIS);
    /** How long leftovers with a bounded lifetime (fence keys, claim deadlines) may take to go. */
    private static final Duration SETTLE = Duration.ofSeconds(5);
    /** The provider timeouts of the outage cases, and the bound a call must fail within. */
    private static final Duration SHORT_TIMEOUT = Duration.ofMillis(500);

    private static final Duration FAILS_WITHIN = Duration.ofSeconds(3);
    private static final String BAD_PASSWORD = "not-the-password-4711";

    private final Closer closeables = new Closer();
    private RedisServer redis;
    private RedisState state;
    private RedisState.Snapshot before;

    @BeforeEach
    void snapshotRedis() {
        redis = REDIS.server();
        state = RedisState.of(redis);
        before = state.snapshot();
    }

    @AfterEach
    void nothingLeftBehind() {
        closeables.closeQuietly();
        state.awaitBackTo(before, SETTLE);
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private JedisLockProviderBuilder providerBuilder() {
        return JedisLockProvider.builder().uri(redis.uri()).fenceRetention(FENCE_RETENTION);
    }

    private JedisLockProvider provider() {
        return closeLater(providerBuilder().build());
    }

    private DistributedLockFactory factory() {
        return factory(provider());
    }

    private DistributedLockFactory factory(JedisLockProvider provider) {
        return closeLater(DistributedLockFactory.builder(provider)
                .subscriptionLinger(Duration.ZERO)
                .build());
    }

    private static String name() {
        return "bad-input:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    /** Runs {@code call} on another thread and returns what it threw, failing if it took {@code bound} or more. */
    private static Throwable failureWithin(Duration bound, ThrowingCallable call) {
        long start = System.nanoTime();
        Throwable thrown = assertTimeoutPreemptively(bound.plusSeconds(5), () -> catchThrowable(call), "the call hung");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(thrown).as("the call returned normally after %d ms", millis).isNotNull();
        assertThat(millis).as("ms until %s", thrown).isLessThan(bound.toMillis());
        System.out.printf("failed after %4d ms: %s%n", millis, thrown.getClass().getSimpleName());
        return thrown;
    }

    // ---------------------------------------------------------------------------------------------

    /** Where a lock name enters the API. */
    enum Entry {
        GET_LOCK {
            @Override
            void call(DistributedLockFactory f, String name) {
                f.getLock(name);
            }
        },
        ACQUIRE {
            @Override
            void call(DistributedLockFactory f, String name) throws InterruptedException {
                f.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(1)));
            }
        },
        TRY_ACQUIRE {
            @Override
            void call(DistributedLockFactory f, String name) {
                f.tryAcquire(name);
            }
        },
        RUN_WITH_LOCK {
            @Override
            void call(DistributedLockFactory f, String name) throws InterruptedException {
                f.runWithLock(name, LockOptions.noWait(), () -> {});
            }
        };

        abstract void call(DistributedLockFactory f, String name) throws InterruptedException;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    @Nested
    @DisplayName("Lock names")
    class Names {

        static Stream<Arguments> badNames() {
            List<Arguments> names = List.of(
                    arguments("a null name", null, "name must not be null"),
                    arguments("an empty name", "", "name must not be blank"),
                    arguments("a name of spaces", "    ", "name must not be blank"),
                    arguments("a name of a tab and a newline", "\t\n", "name must not be blank"),
                    arguments("a 1 MB name", "x".repeat(1 << 20), "name must be at most 8192 characters, was 1048576"),
                    arguments(
                            "a name one char too long",
                            "y".repeat(8193),
                            "name must be at most 8192 characters, was 8193"),
                    arguments("a name with a newline", "order\n42", "control characters, found U+000A at index 5"),
                    arguments("a name with a carriage return", "order\r\n42", "found U+000D at index 5"),
                    arguments("a name with NUL", "order\u000042", "found U+0000 at index 5"),
                    arguments("a name with an ANSI escape", "\u001b[31mred", "found U+001B at index 0"),
                    arguments("a name with DEL", "key\u007f", "found U+007F at index 3"),
                    arguments("a name with a C1 control (NEL)", "a\u0085b", "found U+0085 at index 1"),
                    arguments(
                            "a name ending in an unpaired high surrogate",
                            "key\uD83D",
                            "unpaired surrogate at index 3"),
                    arguments(
                            "a name starting with an unpaired low surrogate",
                            "\uDC00key",
                            "unpaired surrogate at index 0"),
                    arguments(
                            "a name with a surrogate pair reversed", "\uDD12\uD83D", "unpaired surrogate at index 0"));
            List<Arguments> cases = new ArrayList<>();
            for (Arguments n : names) {
                for (Entry e : Entry.values()) {
                    Object[] a = n.get();
                    cases.add(arguments(a[0], e, a[1], a[2]));
                }
            }
            return cases.stream();
        }

        @ParameterizedTest(name = "{0} via {1}")
        @MethodSource("badNames")
        @DisplayName("bad names are refused with the reason, before anything is sent to Redis")
        void badNamesAreRefusedBeforeReachingRedis(String what, Entry entry, String name, String message) {
            DistributedLockFactory f = factory();
            long scriptCalls = state.scriptCalls();
            Throwable thrown = catchThrowable(() -> entry.call(f, name));
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
            assertThat(thrown.getMessage())
                    .as("the message stays short whatever the name")
                    .hasSizeLessThan(200);
            assertThat(state.scriptCalls())
                    .as("script calls that reached Redis")
                    .isEqualTo(scriptCalls);
        }

        static Stream<Arguments> oddButValidNames() {
            return Stream.of(
                    arguments("an opening brace", "{"),
                    arguments("a closing brace", "}"),
                    arguments("an empty hash tag", "{}"),
                    arguments("a hash tag inside", "order{42}line"),
                    arguments("braces reversed", "}{"),
                    arguments("nested braces", "{{a}}"),
                    arguments("the escape of a brace", "%7B"),
                    arguments("Cyrillic", "заказ:42"),
                    arguments("CJK", "锁/订单"),
                    arguments("an emoji (a surrogate pair)", "lock \uD83D\uDD12"),
                    arguments("a combining accent", "cafe\u0301"),
                    arguments("a right-to-left override", "\u202Eevil"),
                    arguments("spaces inside", "  padded name  "),
                    arguments("Lua and Redis syntax", "'; redis.call('FLUSHALL') --"),
                    arguments("a long-bracket string end", "]]..redis.call('DEL', KEYS[1])..[["),
                    arguments("glob characters", "*?[a-z]\\"),
                    arguments("the control channel's suffix", "ctl"),
                    arguments("the longest name accepted (8192 chars)", "z".repeat(8192)));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("oddButValidNames")
        @DisplayName("odd but valid names lock, exclude others, unlock and leave no holder behind")
        void oddNamesWork(String what, String name) throws Exception {
            DistributedLockFactory a = factory();
            DistributedLockFactory b = factory();
            try (LockHandle held = a.acquire(name, LockOptions.noWait())) {
                assertThat(held.name()).isEqualTo(name);
                assertThat(b.tryAcquire(name)).as("busy for another client").isEmpty();
                assertThat(b.getLock(name).isLocked()).isTrue();
                assertThat(state.keys()).contains(RedisState.lockKey(name));
                assertThat(state.holder(name)).isPresent();
            }
            Optional<LockHandle> again = b.tryAcquire(name);
            assertThat(again).as("free after release").isPresent();
            again.get().close();
            assertThat(state.holder(name)).isEmpty();
        }

        @Test
        @DisplayName("braces and their escapes name different locks")
        void escapesDoNotCollide() throws Exception {
            DistributedLockFactory a = factory();
            DistributedLockFactory b = factory();
            List<String> names = List.of("{", "%7B", "%257B", "}", "%7D", "a{b}", "a%7Bb%7D", "%");
            List<LockHandle> held = new ArrayList<>();
            for (String n : names) {
                held.add(a.acquire(n, LockOptions.noWait()));
            }
            for (String n : names) {
                assertThat(b.tryAcquire(n)).as("'%s' busy", n).isEmpty();
            }
            assertThat(names.stream().map(RedisState::lockKey).distinct())
                    .as("one key per name")
                    .hasSize(names.size())
                    .allMatch(state.keys()::contains);
            held.forEach(LockHandle::close);
        }
    }

    // ---------------------------------------------------------------------------------------------

    @FunctionalInterface
    interface FactoryCall {
        void call(DistributedLockFactory f) throws Exception;
    }

    @Nested
    @DisplayName("Durations and options")
    class Options {

        static Stream<Arguments> badOptions() {
            Duration overflow = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
            return Stream.of(
                    arguments(
                            "a negative wait",
                            (FactoryCall) f -> LockOptions.builder().waitAtMost(Duration.ofMillis(-1)),
                            "wait must be at least PT0S, was PT-0.001S"),
                    arguments("a null wait", (FactoryCall) f -> LockOptions.waitAtMost(null), "wait must not be null"),
                    arguments(
                            "a wait that overflows nanoseconds",
                            (FactoryCall) f -> LockOptions.waitAtMost(Duration.ofSeconds(Long.MAX_VALUE)),
                            "wait must be at most PT876000H"),
                    arguments(
                            "a zero lease",
                            (FactoryCall) f -> LockOptions.builder().lease(Duration.ZERO),
                            "lease must be at least PT0.001S, was PT0S"),
                    arguments(
                            "a negative lease",
                            (FactoryCall) f -> LockOptions.builder().lease(Duration.ofSeconds(-5)),
                            "lease must be at least PT0.001S, was PT-5S"),
                    arguments(
                            "a lease under a millisecond",
                            (FactoryCall) f -> LockOptions.builder().lease(Duration.ofNanos(999_999)),
                            "was PT0.000999999S"),
                    arguments(
                            "a null lease",
                            (FactoryCall) f -> LockOptions.builder().lease(null),
                            "lease must not be null"),
                    arguments(
                            "a lease of 100 years and a day",
                            (FactoryCall) f -> LockOptions.builder().lease(LockOptions.MAX_DURATION.plusDays(1)),
                            "lease must be at most PT876000H"),
                    arguments(
                            "the largest Duration as a lease",
                            (FactoryCall) f -> LockOptions.builder().lease(overflow),
                            "lease must be at most"),
                    arguments(
                            "a zero watchdog lease",
                            (FactoryCall) f -> LockOptions.builder().watchdogLease(Duration.ZERO),
                            "watchdogLease must be at least PT0.003S"),
                    arguments(
                            "a watchdog lease too short to renew",
                            (FactoryCall) f -> LockOptions.builder().watchdogLease(Duration.ofMillis(2)),
                            "watchdogLease must be at least PT0.003S, was PT0.002S"),
                    arguments(
                            "an overflowing watchdog lease",
                            (FactoryCall) f -> LockOptions.builder().watchdogLease(overflow),
                            "watchdogLease must be at most"),
                    arguments(
                            "a zero renewal interval",
                            (FactoryCall) f -> LockOptions.builder().renewalInterval(Duration.ZERO),
                            "renewalInterval must be at least PT0.001S"),
                    arguments(
                            "a negative renewal interval",
                            (FactoryCall) f -> LockOptions.builder().renewalInterval(Duration.ofMillis(-1)),
                            "renewalInterval must be at least"),
                    arguments(
                            "a renewal interval equal to the watchdog lease",
                            (FactoryCall) f -> LockOptions.builder()
                                    .watchdogLease(Duration.ofSeconds(1))
                                    .renewalInterval(Duration.ofSeconds(1))
                                    .build(),
                            "renewalInterval (PT1S) must be shorter than watchdogLease (PT1S)"),
                    arguments(
                            "a renewal interval longer than the default watchdog lease",
                            (FactoryCall) f -> LockOptions.builder()
                                    .renewalInterval(Duration.ofSeconds(31))
                                    .build(),
                            "renewalInterval (PT31S) must be shorter than watchdogLease (PT30S)"),
                    arguments(
                            "tryLock with a negative wait",
                            (FactoryCall) f -> f.getLock(name()).tryLock(Duration.ofMillis(-1), null),
                            "wait must be at least"),
                    arguments(
                            "tryLock with a null wait",
                            (FactoryCall) f -> f.getLock(name()).tryLock(null, Duration.ofSeconds(1)),
                            "wait must not be null"),
                    arguments(
                            "tryLock with a zero lease",
                            (FactoryCall) f -> f.getLock(name()).tryLock(Duration.ofSeconds(1), Duration.ZERO),
                            "lease must be at least"),
                    arguments(
                            "tryLock with an overflowing lease",
                            (FactoryCall) f -> f.getLock(name()).tryLock(Duration.ZERO, overflow),
                            "lease must be at most"),
                    arguments(
                            "lock with a negative lease",
                            (FactoryCall) f -> f.getLock(name()).lock(Duration.ofSeconds(-1)),
                            "lease must be at least"),
                    arguments(
                            "lock with a null lease",
                            (FactoryCall) f -> f.getLock(name()).lock(null),
                            "lease must not be null"),
                    arguments(
                            "tryLock without a time unit",
                            (FactoryCall) f -> f.getLock(name()).tryLock(1, null),
                            "unit must not be null"),
                    arguments(
                            "acquire without options",
                            (FactoryCall) f -> f.acquire(name(), null),
                            "options must not be null"),
                    arguments(
                            "tryAcquire without options",
                            (FactoryCall) f -> f.tryAcquire(name(), null),
                            "options must not be null"));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("badOptions")
        @DisplayName("bad durations and options are refused naming the argument, before anything is sent to Redis")
        void badOptionsAreRefused(String what, FactoryCall call, String message) {
            DistributedLockFactory f = factory();
            long scriptCalls = state.scriptCalls();
            assertThatThrownBy(() -> call.call(f))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(message);
            assertThat(state.scriptCalls())
                    .as("script calls that reached Redis")
                    .isEqualTo(scriptCalls);
        }

        @Test
        @DisplayName("a renewal interval longer than the factory's watchdog lease is refused at the call")
        void renewalIntervalBeyondTheFactorysWatchdogLease() {
            DistributedLockFactory f = closeLater(DistributedLockFactory.builder(provider())
                    .defaultOptions(LockOptions.builder()
                            .watchdogLease(Duration.ofSeconds(10))
                            .build())
                    .build());
            LockOptions contradicting = LockOptions.builder()
                    .renewalInterval(Duration.ofSeconds(20))
                    .noWait()
                    .build();
            long scriptCalls = state.scriptCalls();
            assertThatThrownBy(() -> f.acquire(name(), contradicting))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("renewalInterval (PT20S) must be shorter than the watchdog lease (PT10S)");
            assertThat(state.scriptCalls()).isEqualTo(scriptCalls);
        }

        @Test
        @DisplayName("callWithLock and runWithLock without an action are refused naming it, before taking the lock")
        void missingActionIsRefused() {
            DistributedLockFactory f = factory();
            long scriptCalls = state.scriptCalls();
            assertThatThrownBy(() -> f.callWithLock(name(), LockOptions.noWait(), null))
                    .hasMessage("action");
            assertThatThrownBy(() -> f.runWithLock(name(), LockOptions.noWait(), null))
                    .hasMessage("action");
            assertThat(state.scriptCalls()).isEqualTo(scriptCalls);
        }

        @Test
        @DisplayName("durations beyond the range of nanoseconds are clamped by the Lock interface, not overflowed")
        void overflowingTimedTryLockIsClamped() throws Exception {
            DistributedLock lock = factory().getLock(name());
            assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS)).isTrue();
            lock.unlock();
            assertThat(lock.tryLock(Long.MIN_VALUE, TimeUnit.NANOSECONDS))
                    .as("a negative time means no wait")
                    .isTrue();
            lock.unlock();
        }

        @Test
        @DisplayName("extending a hold with a bad lease is refused and the hold stays valid")
        void badExtensionKeepsTheHold() throws Exception {
            LockHandle h = closeLater(factory().acquire(name(), LockOptions.noWait()));
            assertThatThrownBy(() -> h.extend(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease must be at least");
            assertThatThrownBy(() -> h.extend(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease must not be null");
            assertThatThrownBy(() -> h.extend(Duration.ofSeconds(Long.MAX_VALUE)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease must be at most");
            assertThat(h.isValid()).isTrue();
            h.release();
        }

        static Stream<Arguments> badFactorySettings() {
            LocalLockProvider local = new LocalLockProvider();
            return Stream.of(
                    arguments(
                            "a factory without a provider",
                            (FactoryCall) f -> DistributedLockFactory.builder(null),
                            "provider must not be null"),
                    arguments(
                            "a negative subscription linger",
                            (FactoryCall) f ->
                                    DistributedLockFactory.builder(local).subscriptionLinger(Duration.ofMillis(-1)),
                            "subscriptionLinger must be between zero and PT876000H, was PT-0.001S"),
                    arguments(
                            "an overflowing subscription linger",
                            (FactoryCall) f -> DistributedLockFactory.builder(local)
                                    .subscriptionLinger(Duration.ofSeconds(Long.MAX_VALUE)),
                            "subscriptionLinger must be between zero and"),
                    arguments(
                            "a null subscription linger",
                            (FactoryCall)
                                    f -> DistributedLockFactory.builder(local).subscriptionLinger(null),
                            "subscriptionLinger must not be null"),
                    arguments(
                            "a null ticker",
                            (FactoryCall)
                                    f -> DistributedLockFactory.builder(local).ticker(null),
                            "ticker must not be null"),
                    arguments(
                            "null default options",
                            (FactoryCall)
                                    f -> DistributedLockFactory.builder(local).defaultOptions(null),
                            "defaultOptions must not be null"),
                    arguments(
                            "a null loss listener",
                            (FactoryCall)
                                    f -> DistributedLockFactory.builder(local).onLockLost(null),
                            "lossListener must not be null"),
                    arguments(
                            "both a scheduler of the caller and a thread factory for the factory's own",
                            (FactoryCall) f -> {
                                ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
                                try {
                                    DistributedLockFactory.builder(local)
                                            .scheduler(scheduler)
                                            .threadFactory(Thread::new)
                                            .build();
                                } finally {
                                    scheduler.shutdownNow();
                                }
                            },
                            "threadFactory and scheduler"));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("badFactorySettings")
        @DisplayName("bad factory settings are refused naming the setting")
        void badFactorySettingsAreRefused(String what, FactoryCall call, String message) {
            assertThatThrownBy(() -> call.call(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(message);
        }

        static Stream<Arguments> badProviderSettings() {
            return Stream.of(
                    arguments(
                            "a zero timeout",
                            (FactoryCall) f -> JedisLockProvider.builder().timeout(Duration.ZERO),
                            "timeout must be positive, was PT0S"),
                    arguments(
                            "a negative timeout",
                            (FactoryCall) f -> JedisLockProvider.builder().timeout(Duration.ofSeconds(-1)),
                            "timeout must be positive"),
                    arguments(
                            "a timeout over a day",
                            (FactoryCall) f -> JedisLockProvider.builder().timeout(Duration.ofDays(2)),
                            "timeout must be at most one day"),
                    arguments(
                            "a null connect timeout",
                            (FactoryCall) f -> JedisLockProvider.builder().connectTimeout(null),
                            "connectTimeout must be positive, was null"),
                    arguments(
                            "an overflowing connect timeout",
                            (FactoryCall)
                                    f -> JedisLockProvider.builder().connectTimeout(Duration.ofSeconds(Long.MAX_VALUE)),
                            "connectTimeout must be at most one day"),
                    arguments(
                            "a zero claim timeout",
                            (FactoryCall) f -> JedisLockProvider.builder().claimTimeout(Duration.ZERO),
                            "claimTimeout must be positive"),
                    arguments(
                            "a negative fence retention",
                            (FactoryCall) f -> JedisLockProvider.builder().fenceRetention(Duration.ofSeconds(-1)),
                            "fenceRetention must be positive"),
                    arguments(
                            "replica acknowledgement without a timeout",
                            (FactoryCall) f -> JedisLockProvider.builder().replicaAcknowledgement(1, Duration.ZERO),
                            "timeout must be positive"),
                    arguments(
                            "a negative replica count",
                            (FactoryCall)
                                    f -> JedisLockProvider.builder().replicaAcknowledgement(-1, Duration.ofSeconds(1)),
                            "replicas must not be negative, was -1"),
                    arguments(
                            "zero connections",
                            (FactoryCall) f -> JedisLockProvider.builder().maxConnections(0),
                            "maxConnections must be at least 1, was 0"),
                    arguments(
                            "negative local hand-offs",
                            (FactoryCall) f -> JedisLockProvider.builder().localHandOffs(-1),
                            "localHandOffs must not be negative"),
                    arguments(
                            "a key prefix with braces",
                            (FactoryCall) f -> JedisLockProvider.builder().keyPrefix("app{1}"),
                            "keyPrefix must be 1 to 128 printable ASCII"),
                    arguments(
                            "an empty key prefix",
                            (FactoryCall) f -> JedisLockProvider.builder().keyPrefix(""),
                            "keyPrefix"),
                    arguments(
                            "a null key prefix",
                            (FactoryCall) f -> JedisLockProvider.builder().keyPrefix(null),
                            "keyPrefix"),
                    arguments(
                            "a key prefix with a space",
                            (FactoryCall) f -> JedisLockProvider.builder().keyPrefix("my app"),
                            "keyPrefix"),
                    arguments(
                            "a key prefix with a newline",
                            (FactoryCall) f -> JedisLockProvider.builder().keyPrefix("app\n"),
                            "keyPrefix"),
                    arguments(
                            "a non-ASCII key prefix",
                            (FactoryCall) f -> JedisLockProvider.builder().keyPrefix("приложение"),
                            "keyPrefix"),
                    arguments(
                            "a key prefix of 129 characters",
                            (FactoryCall) f -> JedisLockProvider.builder().keyPrefix("p".repeat(129)),
                            "keyPrefix"),
                    arguments(
                            "a client name with a space",
                            (FactoryCall) f -> JedisLockProvider.builder().clientName("my app"),
                            "clientName"),
                    arguments(
                            "an empty client name",
                            (FactoryCall) f -> JedisLockProvider.builder().clientName(""),
                            "clientName"),
                    arguments(
                            "null TLS options",
                            (FactoryCall) f -> JedisLockProvider.builder().sslOptions(null),
                            "sslOptions must not be null"),
                    arguments(
                            "a null thread factory",
                            (FactoryCall) f -> JedisLockProvider.builder().threadFactory(null),
                            "threadFactory must not be null"),
                    arguments(
                            "a null client",
                            (FactoryCall) f -> JedisLockProvider.builder().client(null),
                            "client must not be null"));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("badProviderSettings")
        @DisplayName("bad provider settings are refused naming the setting")
        void badProviderSettingsAreRefused(String what, FactoryCall call, String message) {
            assertThatThrownBy(() -> call.call(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(message);
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(
                strings = {
                    "",
                    "   ",
                    "http://localhost:6379",
                    "localhost:6379",
                    "redis://",
                    "redis://[::1",
                    "redis:///0",
                    "redis://user@127.0.0.1:6379"
                })
        @DisplayName("malformed URIs are refused naming the uri")
        void malformedUrisAreRefused(String uri) {
            assertThatThrownBy(
                            () -> JedisLockProvider.builder().uri(uri).build().close())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("uri");
        }

        @Test
        @DisplayName("a null URI is refused naming the uri")
        void nullUriIsRefused() {
            assertThatThrownBy(() -> JedisLockProvider.builder().uri(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("uri must not be null or blank");
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(
                strings = {
                    "redis://127.0.0.1:6379/abc",
                    "redis://127.0.0.1:6379/1/2",
                    "redis://127.0.0.1:6379/-1",
                    "redis://127.0.0.1:0",
                    "redis://127.0.0.1:99999"
                })
        @DisplayName("URIs with a bad database or port are refused naming the uri")
        void badDatabaseOrPortIsRefused(String uri) {
            assertThatThrownBy(
                            () -> JedisLockProvider.builder().uri(uri).build().close())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("uri");
        }

        @Test
        @DisplayName("TLS options with a plain redis:// URI are refused as contradictory")
        void tlsOptionsWithAPlainUriAreRefused() {
            assertThatThrownBy(() -> JedisLockProvider.builder()
                            .uri(redis.uri())
                            .sslOptions(SslOptions.defaults())
                            .build()
                            .close())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sslOptions")
                    .hasMessageContaining("rediss://");
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("Releasing what is not held, closing twice, using what was closed")
    class Misuse {

        @Test
        @DisplayName("unlocking a lock the thread does not hold throws IllegalMonitorStateException naming it")
        void unlockWithoutHolding() {
            String name = name();
            DistributedLock lock = factory().getLock(name);
            long scriptCalls = state.scriptCalls();
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessage("the current thread does not hold lock '" + name + "'");
            assertThatThrownBy(lock::fencingToken)
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining(name);
            assertThatThrownBy(lock::remainingLease)
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining(name);
            assertThat(state.scriptCalls()).isEqualTo(scriptCalls);
        }

        @Test
        @DisplayName("another thread's unlock throws and leaves the holder's lock alone")
        void unlockFromAnotherThread() throws Exception {
            DistributedLock lock = factory().getLock(name());
            lock.lock();
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                Future<Throwable> f = other.submit(() -> catchThrowable(lock::unlock));
                assertThat(f.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class);
            } finally {
                other.shutdownNow();
            }
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.isLocked()).isTrue();
            lock.unlock();
            assertThatThrownBy(lock::unlock).as("one unlock too many").isInstanceOf(IllegalMonitorStateException.class);
        }

        @Test
        @DisplayName("a stranger's release at the provider is NOT_HELD and the hold survives")
        void strangerReleaseAtTheProvider() {
            JedisLockProvider p = provider();
            String name = name();
            assertThat(p.tryAcquire(new LockRequest(name, "c1:owner", Duration.ofSeconds(30), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            assertThat(p.release(name, "c2:stranger")).isEqualTo(Release.NOT_HELD);
            assertThat(p.release(name, "")).isEqualTo(Release.NOT_HELD);
            assertThat(p.inspect(name))
                    .get()
                    .satisfies(s -> assertThat(s.holdCounts()).containsOnlyKeys("c1:owner"));
            assertThat(p.release(name, "c1:owner")).isEqualTo(Release.RELEASED);
            assertThat(p.forceRelease(name)).as("force release of a free lock").isFalse();
        }

        @Test
        @DisplayName("a handle released twice throws IllegalStateException; closing it again does nothing")
        void handleReleasedTwice() throws Exception {
            String name = name();
            LockHandle h = factory().acquire(name, LockOptions.noWait());
            h.release();
            long scriptCalls = state.scriptCalls();
            assertThatThrownBy(h::release)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("lock '" + name + "' was already released by this owner");
            assertThatThrownBy(h::acquireAgain)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already released");
            assertThatThrownBy(() -> h.extend(Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already released");
            h.close();
            h.close();
            assertThat(h.isValid()).isFalse();
            assertThat(state.scriptCalls())
                    .as("nothing sent for a released handle")
                    .isEqualTo(scriptCalls);
        }

        @Test
        @DisplayName("closing a factory, a provider or a handle twice does nothing the second time")
        void doubleClose() throws Exception {
            JedisLockProvider p = provider();
            DistributedLockFactory f = factory(p);
            LockHandle h = f.acquire(name(), LockOptions.noWait());
            h.close();
            h.close();
            f.close();
            f.close();
            p.close();
            p.close();
            assertThat(state.channels()).as("subscriptions").isEqualTo(before.channels());
        }

        @Test
        @DisplayName(
                "a handle released after its factory closed throws LockLostException once; the lock was freed by the close")
        void handleReleasedAfterTheFactoryClosed() throws Exception {
            String name = name();
            DistributedLockFactory f = factory();
            LockHandle h = f.acquire(name, LockOptions.noWait());
            LockHandle closedByClose = f.acquire(name(), LockOptions.noWait());
            f.close();
            assertThat(state.holder(name)).as("close released the locks").isEmpty();
            assertThatThrownBy(h::release)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("released when the lock factory closed")
                    .hasMessageContaining(name);
            h.close();
            assertThatThrownBy(closedByClose::close).isInstanceOf(LockLostException.class);
            closedByClose.close();
        }

        @Test
        @DisplayName(
                "a thread's unlock after its factory closed throws LockLostException; the lock was freed by the close")
        void unlockAfterTheFactoryClosed() {
            String name = name();
            DistributedLockFactory f = factory();
            DistributedLock lock = f.getLock(name);
            lock.lock();
            f.close();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("released when the lock factory closed");
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(state.holder(name)).isEmpty();
        }

        @Test
        @DisplayName("every call on a closed factory throws LockException naming the lock, without reaching Redis")
        void callsOnAClosedFactory() {
            String name = name();
            DistributedLockFactory f = factory();
            DistributedLock lock = f.getLock(name);
            f.close();
            long scriptCalls = state.scriptCalls();
            List<ThrowingCallable> calls = List.of(
                    lock::lock,
                    lock::tryLock,
                    lock::lockInterruptibly,
                    () -> lock.tryLock(1, TimeUnit.SECONDS),
                    lock::isLocked,
                    lock::forceUnlock,
                    () -> f.acquire(name, LockOptions.noWait()),
                    () -> f.tryAcquire(name),
                    () -> f.getLock(name()).lock());
            for (ThrowingCallable call : calls) {
                assertThatThrownBy(call)
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("the lock factory is closed");
            }
            assertThat(state.scriptCalls()).isEqualTo(scriptCalls);
        }

        @Test
        @DisplayName("calls after the provider alone was closed throw LockException naming the lock")
        void callsAfterTheProviderClosed() {
            String name = name();
            JedisLockProvider p = provider();
            DistributedLockFactory f = factory(p);
            p.close();
            assertThatThrownBy(() -> f.getLock(name).lock())
                    .isInstanceOf(LockException.class)
                    .hasMessage("the Redis lock provider is closed (lock '" + name + "')");
            assertThatThrownBy(() -> f.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(5))))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("closed");
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("Waits that end early")
    class EndedWaits {

        /** Starts {@code count} threads that wait for {@code name} through the API's four waiting calls. */
        private List<Future<Throwable>> startWaiters(
                ExecutorService pool, DistributedLockFactory f, String name, int count, CountDownLatch started) {
            List<Future<Throwable>> waiters = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int kind = i % 4;
                waiters.add(pool.submit(() -> {
                    started.countDown();
                    return catchThrowable(() -> {
                        switch (kind) {
                            case 0 -> f.getLock(name).lockInterruptibly();
                            case 1 -> f.getLock(name).tryLock(60, TimeUnit.SECONDS);
                            case 2 -> f.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(60)));
                            default -> f.getLock(name).tryLock(Duration.ofSeconds(60), Duration.ofSeconds(10));
                        }
                    });
                }));
            }
            return waiters;
        }

        private long queued(String name) {
            return (Long) redis.command("ZCARD", RedisState.lockKey(name) + ":q");
        }

        @Test
        @DisplayName("20 interrupted waiters stop at once and leave no subscription and no queue entry")
        void interruptedWaitersLeaveNothing() throws Exception {
            String name = name();
            LockHandle holder = closeLater(factory().acquire(name, LockOptions.noWait()));
            JedisLockProvider p = provider();
            DistributedLockFactory f = factory(p);
            ExecutorService pool = Executors.newFixedThreadPool(20);
            try {
                CountDownLatch started = new CountDownLatch(20);
                List<Future<Throwable>> waiters = startWaiters(pool, f, name, 20, started);
                started.await();
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> queued(name) == 20 && state.subscribers(RedisState.channel(name)) == 1);
                long start = System.nanoTime();
                pool.shutdownNow(); // interrupts every waiter
                for (Future<Throwable> w : waiters) {
                    assertThat(w.get(2, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
                }
                System.out.printf(
                        "20 interrupted waiters returned within %d ms%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                        .isLessThan(1_000);
                await().atMost(Duration.ofSeconds(2)).until(() -> state.subscribers(RedisState.channel(name)) == 0);
                assertThat(p.subscribedChannels()).isZero();
                assertThat(queued(name)).as("queue entries").isZero();
                assertThat(holder.isValid()).isTrue();
            } finally {
                pool.shutdownNow();
            }
        }

        @Test
        @DisplayName(
                "closing the factory fails its waiting threads within a second with LockException, and drops the subscription")
        void factoryClosedWhileThreadsWait() throws Exception {
            String name = name();
            // Short lease and claim time: waiters of a closed factory are left in the wait queue
            // (see the disabled test below), and these bound how long their entries stay.
            DistributedLockFactory holders = closeLater(DistributedLockFactory.builder(closeLater(providerBuilder()
                            .claimTimeout(Duration.ofMillis(200))
                            .build()))
                    .defaultOptions(LockOptions.builder()
                            .watchdogLease(Duration.ofSeconds(1))
                            .build())
                    .build());
            LockHandle holder = closeLater(holders.acquire(name, LockOptions.noWait()));
            JedisLockProvider p = closeLater(
                    providerBuilder().claimTimeout(Duration.ofMillis(200)).build());
            DistributedLockFactory f = factory(p);
            ExecutorService pool = Executors.newFixedThreadPool(10);
            try {
                CountDownLatch started = new CountDownLatch(10);
                List<Future<Throwable>> waiters = startWaiters(pool, f, name, 10, started);
                started.await();
                await().atMost(Duration.ofSeconds(5)).until(() -> queued(name) == 10);
                long start = System.nanoTime();
                f.close();
                for (Future<Throwable> w : waiters) {
                    assertThat(w.get(2, TimeUnit.SECONDS))
                            .isInstanceOf(LockException.class)
                            .hasMessageContaining("the lock factory was closed while waiting")
                            .hasMessageContaining(name);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("10 waiters of a closed factory failed within %d ms%n", millis);
                assertThat(millis).isLessThan(1_000);
                await().atMost(Duration.ofSeconds(2)).until(() -> state.subscribers(RedisState.channel(name)) == 0);
                assertThat(holder.isValid()).isTrue();
            } finally {
                pool.shutdownNow();
            }
        }

        @Test
        @DisplayName("closing the factory removes its waiters from the wait queue in Redis")
        void factoryClosedWhileThreadsWaitLeavesNoQueueEntry() throws Exception {
            String name = name();
            LockHandle holder = closeLater(factory().acquire(name, LockOptions.noWait()));
            DistributedLockFactory f = factory();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                CountDownLatch started = new CountDownLatch(4);
                List<Future<Throwable>> waiters = startWaiters(pool, f, name, 4, started);
                started.await();
                await().atMost(Duration.ofSeconds(5)).until(() -> queued(name) == 4);
                f.close();
                for (Future<Throwable> w : waiters) {
                    assertThat(w.get(2, TimeUnit.SECONDS)).isInstanceOf(LockException.class);
                }
                await().atMost(Duration.ofSeconds(1)).until(() -> queued(name) == 0);
                assertThat(holder.isValid()).isTrue();
            } finally {
                pool.shutdownNow();
            }
        }

        @Test
        @DisplayName("closing the provider under a factory fails the waiting threads within a second")
        void providerClosedWhileThreadsWait() throws Exception {
            String name = name();
            LockHandle holder = closeLater(factory().acquire(name, LockOptions.noWait()));
            JedisLockProvider p = provider();
            DistributedLockFactory f = factory(p);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                CountDownLatch started = new CountDownLatch(4);
                List<Future<Throwable>> waiters = startWaiters(pool, f, name, 4, started);
                started.await();
                await().atMost(Duration.ofSeconds(5)).until(() -> queued(name) == 4);
                long start = System.nanoTime();
                p.close();
                for (Future<Throwable> w : waiters) {
                    assertThat(w.get(2, TimeUnit.SECONDS))
                            .isInstanceOf(LockException.class)
                            .hasMessageContaining("closed");
                }
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                        .isLessThan(1_000);
                assertThat(holder.isValid()).isTrue();
            } finally {
                pool.shutdownNow();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** A Redis that cannot be used, as a URI; may start something that the test closes. */
    enum Unusable {
        NOTHING_LISTENS("Failed to connect", false) {
            @Override
            String uri(RedisServer redis, Closer closeables) throws IOException {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    return "redis://127.0.0.1:" + s.getLocalPort();
                }
            }
        },
        HTTP_SERVER("Unknown reply", false) {
            @Override
            String uri(RedisServer redis, Closer closeables) {
                FakeServer http = new FakeServer(FakeServer.Behaviour.HTTP);
                closeables.add(http);
                return http.uri();
            }
        },
        SILENT_SERVER("Read timed out", false) {
            @Override
            String uri(RedisServer redis, Closer closeables) {
                FakeServer silent = new FakeServer(FakeServer.Behaviour.SILENT);
                closeables.add(silent);
                return silent.uri();
            }
        },
        WRONG_PASSWORD("WRONGPASS", true) {
            @Override
            String uri(RedisServer redis, Closer closeables) {
                redis.command("ACL", "SETUSER", "bad-input-user", "on", ">the-right-password", "~*", "&*", "+@all");
                return "redis://bad-input-user:" + BAD_PASSWORD + "@127.0.0.1:" + redis.port();
            }
        },
        UNKNOWN_USER("WRONGPASS", true) {
            @Override
            String uri(RedisServer redis, Closer closeables) {
                return "redis://nobody-of-that-name:" + BAD_PASSWORD + "@127.0.0.1:" + redis.port();
            }
        },
        DATABASE_OUT_OF_RANGE("DB index is out of range", true) {
            @Override
            String uri(RedisServer redis, Closer closeables) {
                return "redis://127.0.0.1:" + redis.port() + "/99";
            }
        };

        final String reason;
        /** Redis answers but refuses the configuration: a plain LockException, since trying again will not help. */
        final boolean refused;

        Unusable(String reason, boolean refused) {
            this.reason = reason;
            this.refused = refused;
        }

        abstract String uri(RedisServer redis, Closer closeables) throws IOException;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /** The calls that could hang: they wait for a lock as long as it takes, or for a long time. */
    enum Waiting {
        LOCK,
        TRY_LOCK_10S,
        ACQUIRE_10S;

        void call(DistributedLockFactory f, String name) throws InterruptedException {
            switch (this) {
                case LOCK -> f.getLock(name).lock();
                case TRY_LOCK_10S -> f.getLock(name).tryLock(10, TimeUnit.SECONDS);
                case ACQUIRE_10S -> f.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(10)));
            }
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    static Stream<Arguments> unusableRedis() {
        List<Arguments> cases = new ArrayList<>();
        for (Unusable u : Unusable.values()) {
            for (Waiting w : Waiting.values()) {
                cases.add(arguments(u, w));
            }
        }
        return cases.stream();
    }

    @Nested
    @DisplayName("A Redis that cannot be used")
    class UnusableRedis {

        @ParameterizedTest(name = "{0}, {1}")
        @MethodSource("io.lockkit.jedis.BadInputTest#unusableRedis")
        @DisplayName(
                "fails naming the lock and the reason within 3 s at a 500 ms timeout: BackendUnavailableException when Redis cannot be reached, a plain LockException when it refuses")
        void failsPromptlyWithATypedException(Unusable target, Waiting call) throws Exception {
            String uri = target.uri(redis, closeables);
            JedisLockProvider p = closeLater(JedisLockProvider.builder()
                    .uri(uri)
                    .timeout(SHORT_TIMEOUT)
                    .connectTimeout(SHORT_TIMEOUT)
                    .build());
            DistributedLockFactory f = factory(p);
            String name = name();
            Throwable thrown = failureWithin(FAILS_WITHIN, () -> call.call(f, name));
            assertThat(thrown)
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining(target.reason);
            if (target.refused) {
                assertThat(thrown).isNotInstanceOf(BackendUnavailableException.class);
            } else {
                assertThat(thrown).isInstanceOf(BackendUnavailableException.class);
            }
            assertThat(thrown.getMessage()).as("no password in messages").doesNotContain(BAD_PASSWORD);
            assertThat(p.toString()).doesNotContain(BAD_PASSWORD);
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("Redis failing mid-operation (a server of each test's own)")
    class Outage {

        private RedisServer own;

        @BeforeEach
        void startOwnServer() {
            RedisFixture local =
                    RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();
            try {
                own = closeLater(local.start());
            } catch (IllegalStateException e) {
                assumeTrue(false, "no local redis-server binary to stop and stall: " + e.getMessage());
            }
        }

        private JedisLockProvider ownProvider() {
            return closeLater(JedisLockProvider.builder()
                    .uri(own.uri())
                    .fenceRetention(FENCE_RETENTION)
                    .timeout(SHORT_TIMEOUT)
                    .connectTimeout(SHORT_TIMEOUT)
                    .build());
        }

        private DistributedLockFactory ownFactory(Duration watchdogLease) {
            return closeLater(DistributedLockFactory.builder(ownProvider())
                    .subscriptionLinger(Duration.ZERO)
                    .defaultOptions(
                            LockOptions.builder().watchdogLease(watchdogLease).build())
                    .build());
        }

        private void signal(String signal) throws Exception {
            assumeTrue(
                    own.pid().isPresent()
                            && !System.getProperty("os.name")
                                    .toLowerCase(Locale.ROOT)
                                    .startsWith("windows"),
                    "needs a local redis-server process and kill(1)");
            Process kill = new ProcessBuilder(
                            "kill", "-" + signal, Long.toString(own.pid().getAsLong()))
                    .inheritIO()
                    .start();
            assertThat(kill.waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(kill.exitValue()).as("kill -%s", signal).isZero();
        }

        @Test
        @DisplayName(
                "a stalled Redis (SIGSTOP): release, acquire and lock fail with BackendUnavailableException within 3 s; all works after SIGCONT")
        void stalledRedisFailsCallsPromptly() throws Exception {
            DistributedLockFactory f = ownFactory(Duration.ofSeconds(1));
            String held = name();
            LockHandle h = f.acquire(held, LockOptions.noWait());
            signal("STOP");
            try {
                assertThat(failureWithin(FAILS_WITHIN, h::release))
                        .isInstanceOf(BackendUnavailableException.class)
                        .hasMessageContaining(held);
                String other = name();
                assertThat(failureWithin(
                                FAILS_WITHIN, () -> f.acquire(other, LockOptions.waitAtMost(Duration.ofSeconds(10)))))
                        .isInstanceOf(BackendUnavailableException.class)
                        .hasMessageContaining(other);
                assertThat(failureWithin(FAILS_WITHIN, () -> f.getLock(other).lock()))
                        .isInstanceOf(BackendUnavailableException.class);
                assertThat(failureWithin(FAILS_WITHIN, () -> f.getLock(other).isLocked()))
                        .isInstanceOf(BackendUnavailableException.class);
            } finally {
                signal("CONT");
            }
            LockHandle after = f.acquire(name(), LockOptions.waitAtMost(Duration.ofSeconds(5)));
            after.release();
            // The failed release stopped renewal, so the old hold lapses with its 1 s lease.
            RedisState ownState = RedisState.of(own);
            await().atMost(Duration.ofSeconds(10)).until(() -> ownState.dbSize() == 0);
        }

        @Test
        @DisplayName(
                "threads waiting when Redis goes away get BackendUnavailableException, within the holder's remaining lease")
        void waitersOfAVanishedRedisFail() throws Exception {
            DistributedLockFactory holders = ownFactory(Duration.ofSeconds(2));
            String name = name();
            holders.acquire(name, LockOptions.noWait());
            DistributedLockFactory f = ownFactory(Duration.ofSeconds(30));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Throwable>> waiters = new ArrayList<>();
                List<Callable<Object>> calls = List.of(
                        () -> {
                            f.getLock(name).lock();
                            return null;
                        },
                        () -> {
                            f.getLock(name).lockInterruptibly();
                            return null;
                        },
                        () -> f.getLock(name).tryLock(60, TimeUnit.SECONDS),
                        () -> f.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(60))));
                for (Callable<Object> c : calls) {
                    waiters.add(pool.submit(() -> catchThrowable(c::call)));
                }
                RedisState ownState = RedisState.of(own);
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> ownState.subscribers(RedisState.channel(name)) == 1
                                && (Long) own.command("ZCARD", RedisState.lockKey(name) + ":q") == 4);
                long start = System.nanoTime();
                own.stop();
                for (Future<Throwable> w : waiters) {
                    assertThat(w.get(10, TimeUnit.SECONDS))
                            .isInstanceOf(BackendUnavailableException.class)
                            .hasMessageContaining(name);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf(
                        "waiters of a stopped Redis failed after %d ms (holder lease 2 s, timeout 500 ms)%n", millis);
                assertThat(millis).isLessThan(2_000 + FAILS_WITHIN.toMillis());
            } finally {
                pool.shutdownNow();
            }
        }

        @Test
        @DisplayName(
                "threads waiting when Redis goes away get BackendUnavailableException within 3 s at a 500 ms timeout")
        void waitersOfAVanishedRedisFailWithinTheTimeout() throws Exception {
            DistributedLockFactory holders = ownFactory(Duration.ofSeconds(30));
            String name = name();
            holders.acquire(name, LockOptions.noWait());
            DistributedLockFactory f = ownFactory(Duration.ofSeconds(30));
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<Throwable> lock =
                        pool.submit(() -> catchThrowable(() -> f.getLock(name).lock()));
                Future<Throwable> tryLock =
                        pool.submit(() -> catchThrowable(() -> f.getLock(name).tryLock(60, TimeUnit.SECONDS)));
                RedisState ownState = RedisState.of(own);
                await().atMost(Duration.ofSeconds(5)).until(() -> ownState.subscribers(RedisState.channel(name)) == 1);
                own.stop();
                for (Future<Throwable> w : List.of(lock, tryLock)) {
                    try {
                        assertThat(w.get(FAILS_WITHIN.toMillis(), TimeUnit.MILLISECONDS))
                                .isInstanceOf(BackendUnavailableException.class);
                    } catch (TimeoutException e) {
                        throw new AssertionError(
                                "a waiter was still waiting " + FAILS_WITHIN + " after Redis went away", e);
                    } catch (ExecutionException e) {
                        throw new AssertionError(e);
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
