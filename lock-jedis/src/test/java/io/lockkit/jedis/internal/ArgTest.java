package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ArgTest {

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 35, 36, 64, 65, 1_000_000, Long.MAX_VALUE, -1, Long.MIN_VALUE})
    @DisplayName("numbers are their decimal digits, as Long.toString writes them")
    void numbers(long value) {
        assertThat(Arg.of(value).getRaw()).isEqualTo(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
        assertThat(Arg.of(value)).hasToString(Long.toString(value));
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 35, 36, 1295, 1296, 123_456_789_012L, Long.MAX_VALUE})
    @DisplayName("base 36 is Long.toString's, digits then lower-case letters")
    void base36(long value) {
        assertThat(Arg.base36(value)).hasToString(Long.toString(value, 36));
        assertThat(Arg.base36(value).getRaw())
                .isEqualTo(Long.toString(value, 36).getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    @DisplayName("base 36 of a negative number is refused, naming the argument")
    void negativeBase36() {
        assertThatThrownBy(() -> Arg.base36(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value");
    }

    @Test
    @DisplayName("text is UTF-8; flags are 1 and 0; equal bytes are equal arguments")
    void textAndFlags() {
        assertThat(Arg.of("锁").getRaw()).isEqualTo("锁".getBytes(StandardCharsets.UTF_8));
        assertThat(Arg.of(true)).hasToString("1").isEqualTo(Arg.of("1"));
        assertThat(Arg.of(false)).hasToString("0").hasSameHashCodeAs(Arg.of("0"));
        assertThat(Arg.suffixed(Arg.of("k"), ":qd")).hasToString("k:qd").isEqualTo(Arg.of("k:qd"));
    }

    @Test
    @DisplayName("a remembered value is encoded again only when it changes")
    void remembered() {
        AtomicInteger encoded = new AtomicInteger();
        Arg.Remembered<Duration> millis = new Arg.Remembered<>(d -> {
            encoded.incrementAndGet();
            return Arg.of(d.toMillis());
        });
        Arg first = millis.of(Duration.ofSeconds(30));
        assertThat(millis.of(Duration.ofMillis(30_000))).isSameAs(first);
        assertThat(millis.of(Duration.ofSeconds(2))).hasToString("2000");
        assertThat(millis.of(Duration.ofSeconds(30))).hasToString("30000");
        assertThat(encoded).hasValue(3);
    }
}
