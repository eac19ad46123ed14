package io.lockkit.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("LockkitLockRegistry's arguments (in-JVM provider)")
class LockkitLockRegistryArgumentsTest {

    private final DistributedLockFactory locks = DistributedLockFactory.create(new LocalLockProvider());
    private final LockkitLockRegistry registry = new LockkitLockRegistry(locks, "orders:");

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    @DisplayName("a key that is not a String, or makes no valid lock name, is an IllegalArgumentException naming it")
    void badKeysAreRefused() {
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockKey")
                .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> registry.renewLock(42)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LockkitLockRegistry(locks).obtain(""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LockkitLockRegistry(locks).obtain("a\nb"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("null factories and prefixes, and ttls below a millisecond, are IllegalArgumentExceptions naming them")
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new LockkitLockRegistry(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("locks");
        assertThatThrownBy(() -> new LockkitLockRegistry(locks, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix");
        LockkitLock lock = registry.obtain("42");
        assertThatThrownBy(() -> lock.lock(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl");
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl");
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    @DisplayName("the lock name is the prefix and the key; conditions are unsupported")
    void nameAndConditions() {
        LockkitLock lock = registry.obtain("42");
        assertThat(lock.name()).isEqualTo("orders:42");
        assertThat(lock.distributedLock().name()).isEqualTo("orders:42");
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }
}
