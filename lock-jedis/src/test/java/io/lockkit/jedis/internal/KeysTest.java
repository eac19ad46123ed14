package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;

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
