package io.lockkit.quarkus;

import io.quarkus.runtime.annotations.ConfigDocMapKey;
import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import java.util.Map;
import java.util.Optional;

/**
 * lockkit's run-time configuration, {@code quarkus.lockkit.*}. Each key is read by lock-cdi and the
 * providers as the {@code lockkit.*} key of the same name (the configuration reference describes
 * values and defaults). Where both are set, the one from the configuration source of higher ordinal
 * wins (an environment variable over {@code application.properties}), the plain {@code lockkit.*} key
 * on a tie. Values are checked when the application starts, by lockkit, which names the key of a
 * wrong value.
 */
// Design notes.
// - The keys are declared here so that Quarkus knows them: it reports a mistyped quarkus.lockkit.*
//   key, applies profiles, and generates the configuration documentation. What lockkit reads is the
//   plain key: LockkitConfigFallback answers a lookup of lockkit.x with quarkus.lockkit.x, so lock-cdi
//   and the providers keep one parser and one set of messages, in and out of Quarkus.
// - Values are strings: lockkit's own parsing (durations like "30s", secrets redacted in messages)
//   decides what is valid, as it does for lockkit.* keys; Quarkus' converters would accept and reject
//   other spellings.
// - The one rename: lockkit.redis.tls is both a value and a prefix, which a mapping cannot express;
//   here it is quarkus.lockkit.redis.tls.enabled.
// - Another provider's keys (a factory on the application's class path, written after this
//   mapping) cannot be listed here: otherProviders() takes every quarkus.lockkit.<name>.<setting>
//   whose <name> is no member of lockkit's mappings, so that Quarkus neither warns about the keys a
//   provider declares nor leaves out their values when it records a packaged application's
//   configuration. Quarkus matches a key against the named members first, so a mistyped
//   quarkus.lockkit.redis.x is still Quarkus' to report; a key in another provider's section that
//   the provider does not declare is lockkit's (OtherProviderKeys), with the provider's keys listed.
@ConfigMapping(prefix = "quarkus.lockkit")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface LockkitRuntimeConfig {

    /**
     * The provider: {@code redis}, {@code jdbc}, {@code local} (in-JVM, one process) or another provider's
     * name; {@code redis} when unset. The provider's artifact (lock-jedis, lock-jdbc) is the application's
     * to add.
     */
    Optional<String> provider();

    /** This instance's name in lock holders ({@code lockkit.client-id}); by default host name and process id. */
    Optional<String> clientId();

    /** {@code eager} (the backend is checked at start) or {@code lazy} ({@code lockkit.startup}). */
    Optional<String> startup();

    /** The lease a held lock is renewed for by the watchdog, e.g. {@code 30s} ({@code lockkit.watchdog-lease}). */
    Optional<String> watchdogLease();

    /** How long shutdown waits for running {@code @Locked} methods, e.g. {@code 10s} ({@code lockkit.drain-timeout}). */
    Optional<String> drainTimeout();

    /** The readiness check. */
    Health health();

    /** The Redis provider. */
    Redis redis();

    /** The JDBC provider. */
    Jdbc jdbc();

    /** Declared leaderships, by name ({@code lockkit.leadership.<name>.*}). */
    @ConfigDocMapKey("leadership-name")
    Map<String, Leadership> leadership();

    /**
     * Another provider's settings ({@code lockkit.<provider-name>.<setting>}), for a provider factory on
     * the application's class path other than lockkit's: the keys its factory declares, which lockkit
     * checks at start (a key the provider does not declare is reported, with the ones it does).
     */
    @WithParentName
    @ConfigDocMapKey("provider-name")
    Map<String, Map<String, String>> otherProviders();

    /**
     * The {@code lockkit} readiness check ({@code lockkit.health.*}); whether it is part of the
     * application is the build-time {@code quarkus.lockkit.health.enabled}.
     */
    interface Health {

        /** How long the check may wait for the backend, e.g. {@code 2s}. */
        Optional<String> timeout();

        /** Lost locks per minute above which the check reports DOWN. */
        Optional<String> maxLossesPerMinute();
    }

    /** The Redis provider ({@code lockkit.redis.*}). */
    interface Redis {

        /** The server, e.g. {@code redis://redis:6379} or {@code rediss://...}; in dev and test mode Dev Services supplies one when no server is configured. */
        Optional<String> uri();

        /** The ACL user. */
        Optional<String> user();

        /** The password. */
        Optional<String> password();

        /** The prefix of every key lockkit writes. */
        Optional<String> keyPrefix();

        /** The client name shown by {@code CLIENT LIST}. */
        Optional<String> clientName();

        /** The command timeout, e.g. {@code 2s}. */
        Optional<String> timeout();

        /** The connect timeout, e.g. {@code 2s}. */
        Optional<String> connectTimeout();

        /** How long a lock handed to a waiter of another process stays with it until that process claims or renews it. */
        Optional<String> claimTimeout();

        /** How long fencing counters are kept after their lock's last use. */
        Optional<String> fenceRetention();

        /** The connection pool's size. */
        Optional<String> maxConnections();

        /** Redis Sentinel ({@code lockkit.redis.sentinel.*}). */
        Sentinel sentinel();

        /** Redis Cluster ({@code lockkit.redis.cluster.*}). */
        Cluster cluster();

        /** TLS to Sentinel and Cluster nodes ({@code lockkit.redis.tls*}). */
        Tls tls();

        /** Waiting for replicas to acknowledge lock writes ({@code lockkit.redis.replica-acknowledgement.*}). */
        ReplicaAcknowledgement replicaAcknowledgement();
    }

    /** Redis Sentinel. */
    interface Sentinel {

        /** The master's name. */
        Optional<String> master();

        /** The Sentinels, {@code host:port} separated by commas. */
        Optional<String> nodes();

        /** The Sentinels' ACL user. */
        Optional<String> user();

        /** The Sentinels' password. */
        Optional<String> password();
    }

    /** Redis Cluster. */
    interface Cluster {

        /** Seed nodes, {@code host:port} separated by commas. */
        Optional<String> nodes();
    }

    /** TLS. */
    interface Tls {

        /** TLS to Sentinel and Cluster nodes ({@code lockkit.redis.tls}); a URI says it with {@code rediss://}. */
        @WithName("enabled")
        Optional<String> enabled();

        /** The trust store file. */
        Optional<String> trustStore();

        /** The trust store's password. */
        Optional<String> trustStorePassword();

        /** The trust store's type: {@code PKCS12}, {@code JKS} or {@code PEM}. */
        Optional<String> trustStoreType();

        /** The client certificate and key. */
        Optional<String> keyStore();

        /** The key store's password. */
        Optional<String> keyStorePassword();

        /** The key store's type: {@code PKCS12} or {@code JKS}. */
        Optional<String> keyStoreType();
    }

    /** Replica acknowledgement. */
    interface ReplicaAcknowledgement {

        /** How many replicas must acknowledge a lock write. */
        Optional<String> replicas();

        /** How long to wait for them. */
        Optional<String> timeout();
    }

    /** The JDBC provider ({@code lockkit.jdbc.*}). */
    interface Jdbc {

        /**
         * The Agroal datasource holding the lock table, by its name ({@code quarkus.datasource."name".*});
         * unset: the default datasource. An unknown name fails the start.
         */
        Optional<String> datasource();

        /** A JDBC URL, when lockkit is to open its own connections instead of using a datasource. */
        Optional<String> url();

        /** The user, with {@code url}. */
        Optional<String> user();

        /** The password, with {@code url}. */
        Optional<String> password();

        /** The lock table's schema. */
        Optional<String> schema();

        /** The lock table's name. */
        Optional<String> table();

        /** The statement timeout, e.g. {@code 5s}. */
        Optional<String> timeout();

        /** Whether waiters are woken by PostgreSQL {@code LISTEN}/{@code NOTIFY}. */
        Optional<String> listen();

        /** Whether lockkit creates its table at start. */
        Optional<String> createSchema();
    }

    /** A declared leadership. */
    interface Leadership {

        /** The leader's lease, e.g. {@code 10s}. */
        Optional<String> lease();

        /** How long the instance sits out after its leader stepped down. */
        Optional<String> rejoinDelay();
    }
}
