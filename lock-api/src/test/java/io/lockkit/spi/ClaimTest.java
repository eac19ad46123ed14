package io.lockkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Claim}: what a hold takes of a name, and the requests that carry it. */
class ClaimTest {

    @Test
    void aRequestWithoutAClaimIsExclusive() {
        LockProvider.LockRequest request =
                new LockProvider.LockRequest("n", "c:t1", Duration.ofSeconds(1), Duration.ZERO);

        assertThat(request.claim()).isSameAs(Claim.EXCLUSIVE);
        assertThat(request.claim().exclusive()).isTrue();
        assertThat(new LockProvider.LockRequest("n", "c:t1", Duration.ofSeconds(1), Duration.ZERO, 7).claim())
                .isSameAs(Claim.EXCLUSIVE);
    }

    @Test
    void sharedClaimsCountAgainstACapacityOrNone() {
        Claim read = Claim.shared(1, Claim.UNBOUNDED);
        Claim permits = Claim.shared(3, 5).fairly();

        assertThat(read.exclusive()).isFalse();
        assertThat(read.fair()).isFalse();
        assertThat(permits.weight()).isEqualTo(3);
        assertThat(permits.capacity()).isEqualTo(5);
        assertThat(permits.fair()).isTrue();
        assertThat(read.beside("c:t1").beside()).isEqualTo("c:t1");
        assertThat(Claim.EXCLUSIVE.fairly().fair()).isTrue();
    }

    @Test
    void badClaimsAreRefusedNamingTheComponent() {
        assertThatThrownBy(() -> Claim.shared(0, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weight must be at least 1, was 0");
        assertThatThrownBy(() -> Claim.shared(6, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weight must not exceed capacity 5, was 6");
        assertThatThrownBy(() -> Claim.shared(1, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("capacity must be 0 (unbounded) or positive");
        assertThatThrownBy(() -> new Claim(Claim.Mode.EXCLUSIVE, 2, 1, false, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("an exclusive claim has weight 1 and capacity 1");
        assertThatThrownBy(() -> Claim.EXCLUSIVE.beside("c:t1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("beside is for shared claims");
        assertThatThrownBy(() -> new Claim(null, 1, 1, false, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mode must not be null");
        assertThatThrownBy(() -> Claim.shared(1, 0).beside(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("exclusiveOwner must not be null");
    }
}
