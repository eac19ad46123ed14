package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Lock names as every entry point of the factory checks them. */
class LockNameTest {

    private final DistributedLockFactory locks = DistributedLockFactory.create(new LocalLockProvider());

    @AfterEach
    void close() {
        locks.close();
    }

    static Stream<Named<String>> badNames() {
        return Stream.of(
                Named.of("null", null),
                Named.of("empty", ""),
                Named.of("spaces", "   "),
                Named.of("a tab", "\t"),
                Named.of("8193 chars", "x".repeat(8193)),
                Named.of("NUL", "orders\u000042"),
                Named.of("line feed", "orders\n42"),
                Named.of("DEL", "orders\u007f42"),
                Named.of("unpaired high surrogate", "orders:\uD83D:42"),
                Named.of("high surrogate at the end", "orders:\uD83D"),
                Named.of("lone low surrogate", "\uDD12orders"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badNames")
    void badNameIsRejectedNamingTheArgument(String name) {
        assertThatThrownBy(() -> locks.getLock(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("name must");
        assertThatThrownBy(() -> locks.acquire(name, LockOptions.noWait()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("name must");
        assertThatThrownBy(() -> locks.tryAcquire(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("name must");
    }

    @Test
    void rejectionSaysWhereTheBadCharacterIs() {
        assertThatThrownBy(() -> locks.getLock("ab\u0000"))
                .hasMessage("name must not contain control characters, found U+0000 at index 2");
        assertThatThrownBy(() -> locks.getLock("x".repeat(8193)))
                .hasMessage("name must be at most 8192 characters, was 8193");
    }

    static Stream<Named<String>> unusualNames() {
        return Stream.of(
                Named.of("hash-tag braces", "{orders}:42"),
                Named.of("unbalanced braces", "}{orders{"),
                Named.of("unicode with a surrogate pair", "заказ:42:订单:🔒"),
                Named.of("inner spaces", " orders 42 "),
                Named.of("1 KB", "k".repeat(1024)),
                Named.of("8192 chars", "m".repeat(8192)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unusualNames")
    void unusualNameLocksLikeAnyOther(String name) throws InterruptedException {
        DistributedLock lock = locks.getLock(name);
        assertThat(lock.name()).isEqualTo(name);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();

        try (LockHandle handle = locks.acquire(name, LockOptions.noWait())) {
            assertThat(handle.name()).isEqualTo(name);
        }
    }

    @Test
    void acquireRejectsMissingOptionsNamingTheArgument() {
        assertThatThrownBy(() -> locks.acquire("orders:42", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("options must not be null");
        assertThatThrownBy(() -> locks.getLock("orders:42").tryLock(1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unit must not be null");
        assertThatThrownBy(() -> locks.getLock("orders:42").tryLock(null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("wait ");
    }
}
