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

    private static Target.Resolved resolved(Map<String, String> env, String... args) {
        CommandLine cl = LockkitCli.commandLine(LockkitCli.Environment.of(env, null));
        cl.parseArgs(args);
        return Target.resolve(cl.getCommand());
    }

    private static URI resolve(Map<String, String> env, String... args) {
        return URI.create(resolved(env, args).settings().get("lockkit.redis.uri"));
    }

    @Test
    @DisplayName(
            "--uri wins over LOCKKIT_URI, which wins over LOCKKIT_REDIS_URI, which wins over redis://localhost:6379")
    void uriPrecedence() {
        Map<String, String> env = Map.of(
                LockkitCli.URI_VARIABLE, "redis://env-host:7000", LockkitCli.REDIS_URI_VARIABLE, "redis://old:7002");
        assertThat(resolve(env, "--uri", "redis://opt-host:7001", "list"))
                .hasHost("opt-host")
                .hasPort(7001);
        assertThat(resolve(env, "list")).hasHost("env-host").hasPort(7000);
        assertThat(resolve(Map.of(LockkitCli.REDIS_URI_VARIABLE, "redis://old:7002"), "list"))
                .hasHost("old");
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
                .hasMessageStartingWith("--uri: no lock provider on the class path takes a URI like 'http://u:***@h:1'")
                .hasMessageContaining("the present ones take")
                .hasMessageContaining("rediss:")
                .hasMessageContaining("jdbc:postgresql:")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> resolve(Map.of(), "--uri", "redis://u:sec ret@h:1", "list"))
                .isInstanceOf(Target.UsageException.class)
                .hasMessageNotContaining("sec ret");
        assertThat(Target.redact(URI.create("redis://u:secret@h:1"))).isEqualTo("redis://u:***@h:1");
        assertThat(Target.redact(URI.create("redis://h:1"))).isEqualTo("redis://h:1");
    }

    @Test
    @DisplayName(
            "a JDBC URL selects the jdbc provider; --user, --password or LOCKKIT_JDBC_PASSWORD become its keys; options it has no key for are usage errors")
    void jdbcUrlsTakeTheJdbcKeys() {
        String url = "jdbc:postgresql://db:5432/app";
        Target.Resolved r = resolved(Map.of(), "--uri", url, "--user", "ops", "--password", "pw", "list");
        assertThat(r.factory().name()).isEqualTo("jdbc");
        assertThat(r.settings())
                .containsEntry("lockkit.jdbc.url", url)
                .containsEntry("lockkit.jdbc.user", "ops")
                .containsEntry("lockkit.jdbc.password", "pw")
                .doesNotContainKey("lockkit.jdbc.key-prefix");
        assertThat(r.description()).isEqualTo(url);
        assertThat(resolved(Map.of("LOCKKIT_JDBC_PASSWORD", "envpw"), "--uri", url, "--timeout", "3s", "list")
                        .settings())
                .containsEntry("lockkit.jdbc.password", "envpw")
                .containsEntry("lockkit.jdbc.timeout", "3000ms");
        assertThat(resolved(Map.of(), "--uri", url, "--set", "lockkit.jdbc.table=app_locks", "list")
                        .settings())
                .containsEntry("lockkit.jdbc.table", "app_locks");
        assertThat(resolved(Map.of(), "--uri", url + "?password=hush", "list").description())
                .isEqualTo(url + "?password=***");
        assertThatThrownBy(() -> resolved(Map.of(), "--uri", url, "--key-prefix", "app", "list"))
                .isInstanceOf(Target.UsageException.class)
                .hasMessage("--key-prefix does not apply to the jdbc provider (it has no lockkit.jdbc.key-prefix)");
        assertThatThrownBy(() -> resolved(Map.of(), "--uri", url, "--set", "lockkit.jdbc.tabel=x", "list"))
                .isInstanceOf(Target.UsageException.class)
                .hasMessageStartingWith("--set lockkit.jdbc.tabel: the jdbc provider has no such key; it has ")
                .hasMessageContaining("lockkit.jdbc.table");
    }

    @Test
    @DisplayName("Redis keeps its key prefix, client name and the PEM --cacert as its own keys")
    void redisKeys() {
        Target.Resolved r = resolved(Map.of(), "--uri", "rediss://h:6380", "--cacert", "ca.pem", "list");
        assertThat(r.factory().name()).isEqualTo("redis");
        assertThat(r.settings())
                .containsEntry("lockkit.redis.key-prefix", "lockkit")
                .containsEntry("lockkit.redis.client-name", Target.CLIENT_NAME)
                .containsEntry("lockkit.redis.tls.trust-store", "ca.pem")
                .containsEntry("lockkit.redis.tls.trust-store-type", "PEM");
        assertThat(r.description()).isEqualTo("rediss://h:6380 (key prefix lockkit)");
        assertThat(r.inOptionTerms("lockkit: lockkit.redis.tls.trust-store = 'ca.pem' (from the command line): cannot"
                        + " read the file"))
                .isEqualTo("--cacert = 'ca.pem' (from the command line): cannot read the file");
    }
}
