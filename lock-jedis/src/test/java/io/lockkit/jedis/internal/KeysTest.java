package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.util.JedisClusterCRC16;

class KeysTest {

    private final Keys keys = new Keys("lockkit");

    @ParameterizedTest
    @ValueSource(strings = {"order:42", "{braces}", "}{", "{", "}", "{}", "a}b{c", "%7B", "锁🔒", " spaced ", "x"})
    @DisplayName("every key and the channel of one lock share a cluster slot, braces or not")
    void keysOfOneLockShareASlot(String name) {
        String base = keys.base(name);
        Set<Integer> slots = new HashSet<>();
        for (String key : Keys.all(base)) {
            slots.add(JedisClusterCRC16.getSlot(key));
        }
        slots.add(JedisClusterCRC16.getSlot(Keys.channel(base)));
        assertThat(slots).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"order:42", "{braces}", "锁🔒", " spaced ", "x"})
    @DisplayName("the encoded keys and channel are the keys and channel, byte for byte")
    void encodedKeysAreTheKeys(String name) {
        String base = keys.base(name);
        assertThat(Keys.all(base)).containsExactly(base, base + ":q", base + ":qd");
        assertThat(Keys.shared(base)).containsExactly(base, base + ":q", base + ":qd", base + ":cap");
        for (Arg key : Keys.sharedArgs(base)) {
            assertThat(key.toString())
                    .as("the text kept beside the bytes")
                    .isEqualTo(new String(key.getRaw(), StandardCharsets.UTF_8));
        }
        assertThat(Keys.channel(Keys.allArgs(base).get(0)).getRaw())
                .isEqualTo(Keys.channel(base).getBytes(StandardCharsets.UTF_8));
        for (Arg key : Keys.sharedArgs(base)) {
            assertThat(key.getRaw()).isEqualTo(key.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    @DisplayName("the cache of encoded keys gives each name its own keys, and a hot name's again without encoding")
    void cachedKeysAreEachNamesOwn() {
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 4 * Keys.CACHED_NAMES; i++) { // names share slots: each must still get its own keys
                String name = "n" + i;
                Keys.Encoded e = keys.encoded(name);
                assertThat(e.base()).isEqualTo(keys.base(name));
                assertThat(Arg.texts(e.all())).isEqualTo(Keys.all(e.base()));
                assertThat(Arg.texts(e.shared())).isEqualTo(Keys.shared(e.base()));
                assertThat(e.shared()).isSameAs(e.shared());
                assertThat(e.channel()).hasToString(Keys.channel(e.base()));
            }
        }
        assertThat(keys.encoded("hot")).isSameAs(keys.encoded("hot"));
    }

    @Test
    @DisplayName("escaping keeps distinct names distinct")
    void escapingIsInjective() {
        assertThat(keys.base("{")).isNotEqualTo(keys.base("%7B"));
        assertThat(keys.base("}")).isNotEqualTo(keys.base("%7D"));
        assertThat(keys.base("a")).isEqualTo("lockkit:{a}");
    }

    @Test
    @DisplayName("names spread over the cluster's slots")
    void namesSpreadOverSlots() {
        Set<Integer> slots = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            slots.add(JedisClusterCRC16.getSlot(keys.base("order:" + i)));
        }
        assertThat(slots.size()).isGreaterThan(900);
    }
}
