package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ClientPrefixTest {

    @Test
    @DisplayName("the client part of an owner, up to its first colon, kept while the owners share it")
    void clientParts() {
        ClientPrefix prefixes = new ClientPrefix();
        Arg first = prefixes.of("host/1/abc:t12");
        assertThat(first).hasToString("host/1/abc:");
        assertThat(prefixes.of("host/1/abc:h7")).isSameAs(first);
        assertThat(prefixes.of("host/1/abcd:t12")).hasToString("host/1/abcd:");
        assertThat(prefixes.of("host/1/ab:t1:x")).hasToString("host/1/ab:");
        assertThat(prefixes.of("no-colon")).isSameAs(ClientPrefix.NONE);
        assertThat(prefixes.of(":t1")).hasToString(":");
    }
}
