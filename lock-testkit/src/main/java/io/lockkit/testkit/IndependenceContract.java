package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.spi.LockProvider.Capability;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
        // The lease is not the subject: a long one, so that no renewal of 300 holds falls behind on a
        // loaded machine (and should one, busyForOther asks only what the contract promises).
        DistributedLockFactory a = steadyClient();
        DistributedLockFactory b = client();
        List<String> names = new ArrayList<>();
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String n = name() + ":" + i;
            names.add(n);
            handles.add(a.tryAcquire(n).orElseThrow(() -> new AssertionError("free name " + n + " was busy")));
        }
        for (int i = 0; i < names.size(); i++) {
            busyForOther(b, names.get(i), handles.get(i));
        }
        assertThat(b.tryAcquire(name() + ":other")).isPresent();
        handles.forEach(LockHandle::close);
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

    @Test
    @DisplayName(
            "names are code points compared exactly: names Unicode calls equivalent, or a collation would fold together, are different locks, listed as given")
    void equivalentUnicodeNamesAreDifferentLocks() throws Exception {
        String base = name() + "/";
        List<List<String>> pairs = List.of(
                List.of("\u00e9", "e\u0301"), // é composed and decomposed: canonically equivalent
                List.of("\u212b", "\u00c5"), // the Angstrom sign and Å: canonically equivalent
                List.of("\ufb01", "fi"), // a ligature: compatibility-equivalent
                List.of("\uff21", "A"), // fullwidth A
                List.of("\u212a", "K"), // the Kelvin sign
                List.of("e", "\u00e9"), // accent-insensitive
                List.of("\u00df", "ss"), // ß: folds to ss
                List.of("i", "\u0131"), // dotless i
                List.of("\ud83d\udd12", "\ud83d\udd13")); // outside the BMP: 4 bytes in UTF-8
        DistributedLockFactory a = client();
        DistributedLockFactory b = client();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < pairs.size(); i++) {
            String first = base + i + ":" + pairs.get(i).get(0);
            String second = base + i + ":" + pairs.get(i).get(1);
            assertThat(a.tryAcquire(first)).as("the first holder of %s", first).isPresent();
            assertThat(b.tryAcquire(second))
                    .as("%s while another client holds %s", second, first)
                    .isPresent();
            assertThat(b.tryAcquire(first))
                    .as("%s, held by another client", first)
                    .isEmpty();
            names.add(first);
            names.add(second);
        }
        if (has(Capability.LISTING)) {
            assertThat(listedNames(closeAfterTest(provider()), base))
                    .as("the names listed, exactly as locked")
                    .isEqualTo(names);
        }
    }

    @Test
    @DisplayName(
            "names of the longest length allowed (8,192 chars, 24 KiB in UTF-8) differing only in the last character are different locks")
    void longestNamesDifferingInTheLastCharacterAreDifferentLocks() {
        String base = name() + ":";
        int fill = DistributedLockFactory.MAX_NAME_LENGTH - base.length() - 1;
        // ASCII (one byte each in UTF-8), then 3-byte characters (the most UTF-8 bytes per char).
        for (String unit : List.of("n", "\u9501")) {
            String prefix = base + unit.repeat(fill);
            String a = prefix + "a";
            String b = prefix + "b";
            assertThat(a).hasSize(DistributedLockFactory.MAX_NAME_LENGTH);
            DistributedLockFactory first = client();
            DistributedLockFactory second = client();
            assertThat(first.tryAcquire(a)).as("the first name, of %s", unit).isPresent();
            assertThat(second.tryAcquire(b))
                    .as("the second name, of %s, while the first is held", unit)
                    .isPresent();
            assertThat(second.tryAcquire(a))
                    .as("the first name, of %s, held by another client", unit)
                    .isEmpty();
            if (has(Capability.LISTING)) {
                assertThat(listedNames(closeAfterTest(provider()), prefix))
                        .as("the names listed under a prefix of %d chars", prefix.length())
                        .containsExactlyInAnyOrder(a, b);
            }
        }
    }
}
