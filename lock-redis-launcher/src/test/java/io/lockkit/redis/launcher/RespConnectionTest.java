package io.lockkit.redis.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fixture's own RESP encoding and reply parsing, without a server. */
class RespConnectionTest {

    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();

    private RespConnection replying(String wire) {
        return new RespConnection(
                null, new ByteArrayInputStream(wire.getBytes(StandardCharsets.UTF_8)), sent, RedisReplyException::new);
    }

    @Test
    void commandsAreSentAsArraysOfBulkStrings() throws Exception {
        replying("+OK\r\n").call("SET", "k", "wört", "");
        assertThat(sent.toString(StandardCharsets.UTF_8))
                .isEqualTo("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nwört\r\n$0\r\n\r\n");
    }

    @Test
    void resp2RepliesBecomePlainJavaValues() throws Exception {
        assertThat(replying("+PONG\r\n").read()).isEqualTo("PONG");
        assertThat(replying(":-42\r\n").read()).isEqualTo(-42L);
        assertThat(replying("$5\r\nhe\r\no\r\n").read()).isEqualTo("he\r\no");
        assertThat(replying("$-1\r\n").read()).isNull();
        assertThat(replying("*-1\r\n").read()).isNull();
        assertThat(replying("*3\r\n$1\r\na\r\n:1\r\n*1\r\n$-1\r\n").read())
                .isEqualTo(List.of("a", 1L, Arrays.asList((Object) null)));
    }

    @Test
    void errorRepliesAreThrownButErrorElementsAreReturned() throws Exception {
        assertThatThrownBy(() -> replying("-ERR wrong\r\n").call("X"))
                .isInstanceOf(RedisReplyException.class)
                .hasMessage("ERR wrong");
        Object exec = replying("*2\r\n+OK\r\n-WRONGTYPE no\r\n").call("EXEC");
        assertThat(exec)
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                .element(1)
                .isInstanceOf(RedisReplyException.class);
    }

    @Test
    void resp3RepliesBecomePlainJavaValues() throws Exception {
        assertThat(replying("_\r\n").read()).isNull();
        assertThat(replying("#t\r\n").read()).isEqualTo(true);
        assertThat(replying(",1.5\r\n").read()).isEqualTo(1.5);
        assertThat(replying(",-inf\r\n").read()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(replying("(12345678901234567890\r\n").read()).isEqualTo(new BigInteger("12345678901234567890"));
        assertThat(replying("=7\r\ntxt:abc\r\n").read()).isEqualTo("abc");
        assertThat(replying("%1\r\n+k\r\n:1\r\n").read()).isEqualTo(Map.of("k", 1L));
        assertThat(replying("|1\r\n+ttl\r\n:3\r\n+after\r\n").read()).isEqualTo("after");
    }

    @Test
    void truncatedRepliesFailWithEof() {
        assertThatThrownBy(() -> replying("").read()).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> replying("$5\r\nab").read()).isInstanceOf(EOFException.class);
    }
}
