package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** lockkit's JFR events, recorded with {@link Recording} and read back from the file. */
class JfrEventsTest {

    private static final List<String> LOCKKIT_EVENTS =
            List.of("lockkit.Acquire", "lockkit.Hold", "lockkit.Loss", "lockkit.Renewal");

    @TempDir
    Path dir;

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final DistributedLockFactory locks =
            DistributedLockFactory.builder(backend).ticker(ticker).build();

    @AfterEach
    void close() {
        locks.close();
    }

    private List<RecordedEvent> record(List<String> enabled, Runnable work) throws IOException {
        Path file = dir.resolve("lockkit.jfr");
        try (Recording recording = new Recording()) {
            // Every lockkit event on or off explicitly, as a .jfc file or -XX:StartFlightRecording would.
            LOCKKIT_EVENTS.forEach(type -> {
                if (enabled.contains(type)) {
                    recording.enable(type);
                } else {
                    recording.disable(type);
                }
            });
            recording.start();
            work.run();
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("lockkit."))
                .collect(Collectors.toList());
    }

    private static List<RecordedEvent> ofType(List<RecordedEvent> events, String type) {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals(type))
                .collect(Collectors.toList());
    }

    @Test
    void acquisitionsAndHoldsAreRecordedWithWaitOutcomeTokenAndHoldTime() throws IOException {
        DistributedLock lock = locks.getLock("orders:42");
        long[] token = new long[1];
        List<RecordedEvent> events = record(LOCKKIT_EVENTS, () -> {
            lock.lock();
            token[0] = lock.fencingToken();
            lock.lock();
            ticker.advance(Duration.ofMillis(250));
            lock.unlock();
            lock.unlock();
            try (DistributedLockFactory other = DistributedLockFactory.builder(backend.newClient())
                            .ticker(ticker)
                            .build();
                    LockHandle held = other.acquire("orders:43", LockOptions.noWait())) {
                assertThat(locks.getLock("orders:43").tryLock()).isFalse();
                assertThat(held.isValid()).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });

        List<RecordedEvent> acquires = ofType(events, "lockkit.Acquire");
        assertThat(acquires)
                .extracting(e -> e.getString("name"), e -> e.getString("outcome"), e -> e.getLong("token"))
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("orders:42", "ACQUIRED", token[0]),
                        org.assertj.core.groups.Tuple.tuple("orders:42", "REENTERED", token[0]),
                        org.assertj.core.groups.Tuple.tuple("orders:43", "ACQUIRED", token[0] + 1),
                        org.assertj.core.groups.Tuple.tuple("orders:43", "BUSY", 0L));
        assertThat(acquires).allSatisfy(e -> assertThat(e.getDuration("wait")).isZero());
        List<RecordedEvent> holds = ofType(events, "lockkit.Hold");
        assertThat(holds).hasSize(2);
        assertThat(holds.get(0).getString("name")).isEqualTo("orders:42");
        assertThat(holds.get(0).getDuration("held")).isEqualTo(Duration.ofMillis(250));
        assertThat(holds.get(0).getLong("token")).isEqualTo(token[0]);
        assertThat(holds.get(0).getEventType().getCategoryNames()).containsExactly("lockkit");
    }

    @Test
    void everyEventSaysWhatKindOfHoldItIsAndHowManyPermits() throws IOException {
        List<RecordedEvent> events = record(LOCKKIT_EVENTS, () -> {
            try {
                locks.acquire("plain", LockOptions.noWait()).release();
                locks.getReadWriteLock("config")
                        .acquireRead(LockOptions.noWait())
                        .release();
                LockHandle permits = locks.getSemaphore("exports", 5).acquire(3, LockOptions.noWait());
                locks.operations().forceRelease("exports");
                assertThat(permits.isValid()).isFalse();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });

        assertThat(ofType(events, "lockkit.Acquire"))
                .extracting(e -> e.getString("name"), e -> e.getString("kind"), e -> e.getInt("permits"))
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("plain", "EXCLUSIVE", 1),
                        org.assertj.core.groups.Tuple.tuple("config", "READ", 1),
                        org.assertj.core.groups.Tuple.tuple("exports", "PERMITS", 3));
        assertThat(ofType(events, "lockkit.Hold"))
                .extracting(e -> e.getString("name"), e -> e.getString("kind"))
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("plain", "EXCLUSIVE"),
                        org.assertj.core.groups.Tuple.tuple("config", "READ"));
        assertThat(ofType(events, "lockkit.Loss"))
                .extracting(e -> e.getString("name"), e -> e.getString("kind"), e -> e.getInt("permits"))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("exports", "PERMITS", 3));
    }

    @Test
    void lossesAreRecordedWithTheirCause() throws IOException {
        List<RecordedEvent> events = record(LOCKKIT_EVENTS, () -> {
            try {
                LockHandle h = locks.acquire("orders:42", LockOptions.noWait());
                locks.getLock("orders:42").forceUnlock();
                assertThat(h.isValid()).isFalse();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });

        List<RecordedEvent> losses = ofType(events, "lockkit.Loss");
        assertThat(losses).hasSize(1);
        assertThat(losses.get(0).getString("name")).isEqualTo("orders:42");
        assertThat(losses.get(0).getString("cause")).isEqualTo("FORCE_RELEASED");
        assertThat(losses.get(0).getString("reason")).contains("force-released");
    }

    @Test
    void renewalBatchesAreRecorded() throws IOException {
        RenewalRecorder recorder = new RenewalRecorder(new LocalLockProvider());
        List<RecordedEvent> events = record(LOCKKIT_EVENTS, () -> {
            try (DistributedLockFactory renewing = DistributedLockFactory.builder(recorder)
                    .defaultOptions(LockOptions.builder()
                            .watchdogLease(Duration.ofSeconds(3))
                            .renewalInterval(Duration.ofMillis(50))
                            .build())
                    .build()) {
                renewing.getLock("orders:42").lock();
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> recorder.renewCalls().size() >= 2);
            }
        });

        List<RecordedEvent> renewals = ofType(events, "lockkit.Renewal");
        assertThat(renewals).isNotEmpty();
        assertThat(renewals.get(0).getInt("holds")).isEqualTo(1);
        assertThat(renewals.get(0).getInt("roundTrips")).isEqualTo(1);
        assertThat(renewals.get(0).getBoolean("failed")).isFalse();
        assertThat(renewals.get(0).getDuration("renewalTime")).isPositive();
    }

    @Test
    void aDisabledEventIsNotRecordedWhileTheOthersAre() throws IOException {
        List<RecordedEvent> events = record(List.of("lockkit.Hold"), () -> {
            DistributedLock lock = locks.getLock("orders:42");
            lock.lock();
            lock.unlock();
        });

        assertThat(events).extracting(e -> e.getEventType().getName()).containsExactly("lockkit.Hold");
    }
}
