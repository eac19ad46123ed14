package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Independent names" ({@link LockContractTest.Independence}): locks of different names, however
 * alike or unusual the names, do not affect each other.
 */
abstract class IndependenceContract extends ContractGroup {

    IndependenceContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("300 names are held at once by one client and each is busy for another")
    void hundredsOfNamesAreHeldAtOnce() throws Exception {
        DistributedLockFactory a = client();
        DistributedLockFactory b = client();
        List<String> names = new ArrayList<>();
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String n = name() + ":" + i;
            names.add(n);
            handles.add(a.tryAcquire(n).orElseThrow(() -> new AssertionError("free name " + n + " was busy")));
        }
        for (String n : names) {
            assertThat(b.tryAcquire(n)).as(n).isEmpty();
        }
        assertThat(b.tryAcquire(name() + ":other")).isPresent();
        handles.forEach(LockHandle::release);
        for (String n : names) {
            assertThat(b.tryAcquire(n)).as(n).isPresent();
        }
    }

    @Test
    @DisplayName("names that differ in case, spacing or suffix are different locks")
    void similarNamesAreDifferentLocks() {
        String base = name();
        DistributedLockFactory a = client();
        DistributedLockFactory b = client();
        List<String> names = List.of(base + "x", base + "X", base + "x ", base + "x:1", base + "x:10");
        for (String n : names) {
            assertThat(a.tryAcquire(n)).as("first holder of %s", n).isPresent();
        }
        for (String n : names) {
            assertThat(b.tryAcquire(n)).as("second holder of %s", n).isEmpty();
        }
    }

    @Test
    @DisplayName("two 1 KB names that differ only in the last character are different locks")
    void longNamesDifferingInTheLastCharacterAreDifferentLocks() {
        String base = name() + ":";
        String prefix = base + "n".repeat(1023 - base.length());
        String a = prefix + "a";
        String b = prefix + "b";
        assertThat(a).hasSize(1024);
        DistributedLockFactory first = client();
        DistributedLockFactory second = client();
        assertThat(first.tryAcquire(a)).as("the first name").isPresent();
        assertThat(second.tryAcquire(b))
                .as("the second name, while the first is held")
                .isPresent();
        assertThat(second.tryAcquire(a))
                .as("the first name, held by another client")
                .isEmpty();
    }

    @Test
    @DisplayName("names with braces, spaces, unicode and 1 KB length lock like any other")
    void unusualNamesLock() {
        String base = name();
        List<String> names = List.of(
                base + "{braces}",
                base + "}{",
                base + "{",
                base + " with spaces ",
                base + "锁🔒ünïcödé",
                base + "x".repeat(1024));
        DistributedLockFactory a = client();
        DistributedLockFactory b = client();
        for (String n : names) {
            Optional<LockHandle> h = a.tryAcquire(n);
            assertThat(h).as("first holder").isPresent();
            assertThat(b.tryAcquire(n)).as("second holder").isEmpty();
            h.get().release();
            assertThat(b.tryAcquire(n)).as("after release").isPresent();
        }
    }
}
