package io.lockkit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import redis.clients.jedis.util.JedisURIHelper;

/** Where the URI and the credentials come from, and that passwords never reach a message. */
@DisplayName("lockkit CLI: URI and credentials")
class TargetTest {

    private static URI resolve(Map<String, String> env, String... args) {
        CommandLine cl = LockkitCli.commandLine(LockkitCli.Environment.of(env, null));
        cl.parseArgs(args);
        return Target.resolveUri(cl.getCommand());
    }

    @Test
    @DisplayName("--uri wins over LOCKKIT_REDIS_URI, which wins over redis://localhost:6379")
    void uriPrecedence() {
        Map<String, String> env = Map.of(LockkitCli.URI_VARIABLE, "redis://env-host:7000");
        assertThat(resolve(env, "--uri", "redis://opt-host:7001", "list"))
                .hasHost("opt-host")
                .hasPort(7001);
        assertThat(resolve(env, "list")).hasHost("env-host").hasPort(7000);
        assertThat(resolve(Map.of(), "list").toString()).isEqualTo(LockkitCli.DEFAULT_URI);
        assertThat(resolve(Map.of(), "list", "--uri", "rediss://h:6380/2"))
                .hasScheme("rediss")
                .hasPath("/2");
    }

    @Test
    @DisplayName(
            "--user and --password (or LOCKKIT_REDIS_PASSWORD) go into the URI, any character escaped, as Jedis reads them back")
    void credentialsGoIntoTheUri() {
        String password = "p@ss:w%rd%41/ä?#";
        URI u = resolve(Map.of(), "--uri", "redis://h:1", "--user", "ops", "--password", password, "list");
        assertThat(JedisURIHelper.getUser(u)).isEqualTo("ops");
        assertThat(JedisURIHelper.getPassword(u)).isEqualTo(password);
        assertThat(JedisURIHelper.getHostAndPort(u).getHost()).isEqualTo("h");

        URI fromEnv =
                resolve(Map.of(LockkitCli.PASSWORD_VARIABLE, "envpw"), "--uri", "redis://reader@h:1", "show", "x");
        assertThat(JedisURIHelper.getUser(fromEnv)).isEqualTo("reader");
        assertThat(JedisURIHelper.getPassword(fromEnv)).isEqualTo("envpw");

        URI inUri = resolve(Map.of(), "--uri", "redis://u:uripw@h:1", "list");
        assertThat(JedisURIHelper.getPassword(inUri)).isEqualTo("uripw");
        URI overridden = resolve(Map.of(LockkitCli.PASSWORD_VARIABLE, "envpw"), "--uri", "redis://u:uripw@h:1", "list");
        assertThat(JedisURIHelper.getPassword(overridden)).isEqualTo("envpw");
        URI defaultUser = resolve(Map.of(), "--uri", "redis://h:1", "--password", "pw", "list");
        assertThat(JedisURIHelper.getUser(defaultUser)).isNull();
        assertThat(JedisURIHelper.getPassword(defaultUser)).isEqualTo("pw");
    }

    @Test
    @DisplayName(
            "a user without a password, a foreign scheme or a malformed URI is a usage error that never shows the password")
    void badUrisAreUsageErrors() {
        assertThatThrownBy(() -> resolve(Map.of(), "--uri", "redis://h:1", "--user", "ops", "list"))
                .isInstanceOf(Target.UsageException.class)
                .hasMessageContaining("needs a password");
        assertThatThrownBy(() -> resolve(Map.of(), "--uri", "http://u:secret@h:1", "list"))
                .isInstanceOf(Target.UsageException.class)
                .hasMessageContaining("redis://host:port")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> resolve(Map.of(), "--uri", "redis://u:sec ret@h:1", "list"))
                .isInstanceOf(Target.UsageException.class)
                .hasMessageNotContaining("sec ret");
        assertThat(Target.redact(URI.create("redis://u:secret@h:1"))).isEqualTo("redis://u:***@h:1");
        assertThat(Target.redact(URI.create("redis://h:1"))).isEqualTo("redis://h:1");
    }
}
