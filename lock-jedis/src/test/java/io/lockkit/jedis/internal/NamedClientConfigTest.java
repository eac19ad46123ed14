package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;

@DisplayName("the connections' name: the factory's client id unless the application gives one")
class NamedClientConfigTest {

    @Test
    @DisplayName("'lockkit' until a factory tells its client id; only the first factory's id counts")
    void firstClientIdCounts() {
        ClientName name = ClientName.fromClientId();
        assertThat(name.get()).isEqualTo(ClientName.UNBOUND);
        assertThat(name.adopt("orders-7d9f8c/1/k3x9q0")).isTrue();
        assertThat(name.adopt("other/2/zzzzzz")).isFalse();
        assertThat(name.get()).isEqualTo("orders-7d9f8c/1/k3x9q0");
    }

    @Test
    @DisplayName("a name the application gave is never replaced")
    void givenNameStays() {
        ClientName name = ClientName.given("worker-1");
        assertThat(name.adopt("orders-7d9f8c/1/k3x9q0")).isFalse();
        assertThat(name.get()).isEqualTo("worker-1");
    }

    @Test
    @DisplayName("characters CLIENT SETNAME refuses become '-' (Jedis would silently send no name)")
    void nameFitsClientSetName() {
        assertThat(ClientName.fit("host name/1/x\ty")).isEqualTo("host-name/1/x-y");
        assertThat(ClientName.fit("héllo")).isEqualTo("h-llo");
        assertThat(ClientName.fit("")).isEqualTo(ClientName.UNBOUND);
    }

    @Test
    @DisplayName("Jedis reads the name each time it connects, and every other setting from the delegate")
    void forwardsEverySetting() throws Exception {
        ClientName name = ClientName.fromClientId();
        JedisClientConfig delegate = DefaultJedisClientConfig.builder()
                .database(3)
                .user("u")
                .password("p")
                .connectionTimeoutMillis(1234)
                .socketTimeoutMillis(2345)
                .clientName("ignored")
                .build();
        JedisClientConfig config = new NamedClientConfig(delegate, name);
        assertThat(config.getClientName()).isEqualTo("lockkit");
        assertThat(name.adopt("h/1/abcdef")).isTrue();
        assertThat(config.getClientName()).isEqualTo("h/1/abcdef");
        for (Method m : JedisClientConfig.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || m.getName().equals("getClientName")) {
                continue;
            }
            assertThat(m.invoke(config)).as(m.getName()).isEqualTo(m.invoke(delegate));
        }
    }

    @Test
    @DisplayName("every method of JedisClientConfig is forwarded, none left to the interface's default")
    void overridesEveryMethod() {
        assertThat(Arrays.stream(JedisClientConfig.class.getMethods())
                        .filter(m -> !Modifier.isStatic(m.getModifiers())))
                .allSatisfy(m -> assertThat(NamedClientConfig.class
                                .getMethod(m.getName(), m.getParameterTypes())
                                .getDeclaringClass())
                        .as(m.getName())
                        .isEqualTo(NamedClientConfig.class));
    }
}
