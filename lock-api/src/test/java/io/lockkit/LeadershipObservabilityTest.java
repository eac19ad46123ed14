package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.Leadership.RevocationReason;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Leadership changes as observers, JFR and health reports see them. */
class LeadershipObservabilityTest {

    private static final String NAME = "observed-leadership";

    @TempDir
    Path dir;

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final List<String> observed = new CopyOnWriteArrayList<>();
    private final DistributedLockFactory locks = DistributedLockFactory.builder(backend)
            .ticker(ticker)
            .observer(new LockObserver() {
                @Override
                public void elected(String name, long term) {
                    observed.add("elected " + name + " " + term);
                }

                @Override
                public void revoked(String name, long term, RevocationReason reason, long ledNanos) {
                    observed.add("revoked " + name + " " + term + " " + reason + " " + ledNanos);
                }
            })
            .build();

    @AfterEach
    void close() {
        locks.close();
    }

    private Leadership leadership() {
        return locks.leadership(
                NAME,
                LeadershipOptions.builder()
                        .lease(Duration.ofSeconds(3))
                        .rejoinDelay(Duration.ofSeconds(30))
                        .build());
    }

    @Test
    @DisplayName("observers hear of each election and revocation, with the term, the reason and the time led")
    void observersHearOfLeadershipChanges() throws Exception {
        Leadership l = leadership().start();
        Term term = l.awaitTerm(Duration.ofSeconds(10)).orElseThrow();
        ticker.advance(Duration.ofMillis(700));
        l.stepDown();
        assertThat(observed)
                .containsExactly(
                        "elected " + NAME + " " + term.fencingToken(),
                        "revoked " + NAME + " " + term.fencingToken() + " STEPPED_DOWN "
                                + Duration.ofMillis(700).toNanos());
    }

    @Test
    @DisplayName("health reports each open leadership and whether this instance leads it")
    void healthReportsLeaderships() throws Exception {
        assertThat(locks.operations().health(Duration.ofSeconds(5)).leaderships())
                .isEmpty();
        Leadership l = leadership();
        assertThat(locks.operations().health(Duration.ofSeconds(5)).leaderships())
                .containsExactly(Map.entry(NAME, false));
        l.start().awaitTerm(Duration.ofSeconds(10)).orElseThrow();
        HealthReport leading = locks.operations().health(Duration.ofSeconds(5));
        assertThat(leading.leaderships()).containsExactly(Map.entry(NAME, true));
        assertThat(leading.toString()).contains("leaderships={" + NAME + "=true}");
        l.stepDown();
        assertThat(locks.operations().health(Duration.ofSeconds(5)).leaderships())
                .containsExactly(Map.entry(NAME, false));
        l.close();
        assertThat(locks.operations().health(Duration.ofSeconds(5)).leaderships())
                .isEmpty();
    }

    @Test
    @DisplayName("JFR records lockkit.Leadership events: ELECTED, then REVOKED with the reason and the time led")
    void jfrRecordsLeadershipChanges() throws Exception {
        Path file = dir.resolve("leadership.jfr");
        long token;
        try (Recording recording = new Recording()) {
            recording.enable("lockkit.Leadership");
            recording.start();
            Leadership l = leadership().start();
            token = l.awaitTerm(Duration.ofSeconds(10)).orElseThrow().fencingToken();
            ticker.advance(Duration.ofMillis(400));
            l.close();
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = readLeadershipEvents(file);
        assertThat(events).hasSize(2);
        assertThat(events.get(0).getString("change")).isEqualTo("ELECTED");
        assertThat(events.get(0).getLong("term")).isEqualTo(token);
        assertThat(events.get(0).getString("name")).isEqualTo(NAME);
        assertThat(events.get(1).getString("change")).isEqualTo("REVOKED");
        assertThat(events.get(1).getString("reason")).isEqualTo("CLOSED");
        assertThat(events.get(1).getDuration("led")).isEqualTo(Duration.ofMillis(400));
    }

    private static List<RecordedEvent> readLeadershipEvents(Path file) throws IOException {
        await().atMost(Duration.ofSeconds(5)).until(() -> file.toFile().length() > 0);
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("lockkit.Leadership"))
                .toList();
    }
}
