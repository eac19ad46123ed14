package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Leases and waits go to the scripts in whole milliseconds, rounded up: Redis must never keep a
 * lease shorter than the one the client counts (the kit's
 * {@code Expiry.holdIsNeverValidOnceAnotherClientHasTheLock} caught leases cut to whole
 * milliseconds on Redis 6.2 and 7 in 5 runs of 6).
 */
class LeaseMillisTest {

    @Test
    @DisplayName("an acquisition's lease and wait of a millisecond and a fraction go as 2 ms; whole ones unchanged")
    void acquisitionRoundsLeasesAndWaitsUp() {
        List<String> args = Arg.texts(new AcquireScript.Args(
                        "c:h1",
                        Duration.ofNanos(1_999_000),
                        Duration.ofNanos(300_000),
                        Duration.ofSeconds(2),
                        false,
                        0,
                        false)
                .encode());
        assertThat(args.subList(1, 4)).containsExactly("2", "1", "2000");
        List<String> whole = Arg.texts(new AcquireScript.Args(
                        "c:h1", Duration.ofMillis(1500), Duration.ZERO, Duration.ofSeconds(2), false, 0, false)
                .encode());
        assertThat(whole.subList(1, 3)).containsExactly("1500", "0");
    }

    @Test
    @DisplayName("a renewal's lease of a millisecond and a fraction goes as 2 ms; the longest lease allowed is exact")
    void renewalRoundsLeasesUp() {
        assertThat(RenewScript.encode(List.of(
                        new RenewScript.Hold("c:h1", Duration.ofNanos(1_000_001)),
                        new RenewScript.Hold("c:h2", Duration.ofDays(36_500)))))
                .containsExactly(
                        "c:h1",
                        "2",
                        "c:h2",
                        Long.toString(Duration.ofDays(36_500).toMillis()));
    }
}
