package io.lockkit.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * lockkit's configuration keys, as Spring Boot binds them: here for IDE completion and Actuator's
 * {@code configprops} (the configuration processor makes {@code spring-configuration-metadata.json}
 * from this class). lockkit itself reads the keys from the {@code Environment} with the same rules,
 * parsers and messages as in CDI and Quarkus, so every value is a string here: durations are
 * ISO-8601 ({@code PT2S}) or a number with {@code ms}, {@code s}, {@code m}, {@code h} or {@code d},
 * and a bare number is seconds (not milliseconds, as Boot's own durations). Not thread-safe; a
 * binding target.
 */
@ConfigurationProperties(prefix = "lockkit")
public class LockkitProperties {
    /** The provider: redis (the default), jdbc, local (in-JVM, one process), or a third party's name. */
    private @Nullable String provider;
    /** eager (the default: the context fails to start when the backend does not answer) or lazy (starts without it; the first use fails). */
    private @Nullable String startup;
    /** This instance's client id in lock owners and CLIENT LIST (default host/pid/suffix). */
    private @Nullable String clientId;
    /** The default lease the watchdog renews, e.g. 30s (ISO-8601 or a number with ms, s, m, h or d; bare numbers are seconds). */
    private @Nullable String watchdogLease;
    /** How long closing the context waits for running @Locked methods before it releases their locks (default 30s). */
    private @Nullable String drainTimeout;
    /** Leaderships by name: {@code lockkit.leadership.<name>.lease} declares one. */
    private final Map<String, Leadership> leadership = new LinkedHashMap<>();

    private final Health health = new Health();
    private final Metrics metrics = new Metrics();

    @NestedConfigurationProperty
    private final LockkitRedisProperties redis = new LockkitRedisProperties();

    private final Jdbc jdbc = new Jdbc();

    public @Nullable String getProvider() {
        return provider;
    }

    public void setProvider(@Nullable String provider) {
        this.provider = provider;
    }

    public @Nullable String getStartup() {
        return startup;
    }

    public void setStartup(@Nullable String startup) {
        this.startup = startup;
    }

    public @Nullable String getClientId() {
        return clientId;
    }

    public void setClientId(@Nullable String clientId) {
        this.clientId = clientId;
    }

    public @Nullable String getWatchdogLease() {
        return watchdogLease;
    }

    public void setWatchdogLease(@Nullable String watchdogLease) {
        this.watchdogLease = watchdogLease;
    }

    public @Nullable String getDrainTimeout() {
        return drainTimeout;
    }

    public void setDrainTimeout(@Nullable String drainTimeout) {
        this.drainTimeout = drainTimeout;
    }

    public Map<String, Leadership> getLeadership() {
        return leadership;
    }

    public Health getHealth() {
        return health;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public LockkitRedisProperties getRedis() {
        return redis;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    /** The {@code lockkit} health indicator. */
    public static class Health {
        /** Whether the indicator probes the backend at all; false keeps it UP (default true). */
        private @Nullable String enabled;
        /** How long the probe may take (default 500ms). */
        private @Nullable String timeout;
        /** DOWN when more holds than this were lost in the last minute (default: losses never make it DOWN). */
        private @Nullable String maxLossesPerMinute;

        public @Nullable String getEnabled() {
            return enabled;
        }

        public void setEnabled(@Nullable String enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getTimeout() {
            return timeout;
        }

        public void setTimeout(@Nullable String timeout) {
            this.timeout = timeout;
        }

        public @Nullable String getMaxLossesPerMinute() {
            return maxLossesPerMinute;
        }

        public void setMaxLossesPerMinute(@Nullable String maxLossesPerMinute) {
            this.maxLossesPerMinute = maxLossesPerMinute;
        }
    }

    /** Micrometer meters, when lock-micrometer and a MeterRegistry bean are present. */
    public static class Metrics {
        /** Whether the library's factory reports to the MeterRegistry (default true). */
        private @Nullable String enabled;

        public @Nullable String getEnabled() {
            return enabled;
        }

        public void setEnabled(@Nullable String enabled) {
            this.enabled = enabled;
        }
    }

    /** The JDBC provider (lock-jdbc), {@code lockkit.provider=jdbc}: PostgreSQL, MariaDB/MySQL, H2. */
    public static class Jdbc {
        /** The lock database's JDBC URL (the provider keeps a small pool of its own); unset: the DataSource bean lockkit.jdbc.datasource names, else the application's DataSource. */
        private @Nullable String url;
        /** The user for lockkit.jdbc.url. */
        private @Nullable String user;
        /** The password for lockkit.jdbc.url. */
        private @Nullable String password;
        /** The name of the DataSource bean to use (default: the application's DataSource, its @Primary one among several). */
        private @Nullable String datasource;
        /** The schema of the lock table (default: the connection's). */
        private @Nullable String schema;
        /** The lock table's name. */
        private @Nullable String table;
        /** Whether the provider creates its table at start, and upgrades it when the recorded schema version is older than the library's (default false). */
        private @Nullable String createSchema;
        /** How long a statement may take, whole seconds rounded up (default 2s). */
        private @Nullable String timeout;
        /** PostgreSQL: wake waiters by LISTEN/NOTIFY; false behind a transaction-mode pooler, where waiters poll (default true). */
        private @Nullable String listen;

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getUser() {
            return user;
        }

        public void setUser(@Nullable String user) {
            this.user = user;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public @Nullable String getDatasource() {
            return datasource;
        }

        public void setDatasource(@Nullable String datasource) {
            this.datasource = datasource;
        }

        public @Nullable String getSchema() {
            return schema;
        }

        public void setSchema(@Nullable String schema) {
            this.schema = schema;
        }

        public @Nullable String getTable() {
            return table;
        }

        public void setTable(@Nullable String table) {
            this.table = table;
        }

        public @Nullable String getCreateSchema() {
            return createSchema;
        }

        public void setCreateSchema(@Nullable String createSchema) {
            this.createSchema = createSchema;
        }

        public @Nullable String getTimeout() {
            return timeout;
        }

        public void setTimeout(@Nullable String timeout) {
            this.timeout = timeout;
        }

        public @Nullable String getListen() {
            return listen;
        }

        public void setListen(@Nullable String listen) {
            this.listen = listen;
        }
    }

    /** A leadership declared in configuration: campaigns from the start, its events are Spring events. */
    public static class Leadership {
        /** The leadership's lease (default: the watchdog lease). */
        private @Nullable String lease;
        /** How long it sits out after stepping down (default: the lease). */
        private @Nullable String rejoinDelay;

        public @Nullable String getLease() {
            return lease;
        }

        public void setLease(@Nullable String lease) {
            this.lease = lease;
        }

        public @Nullable String getRejoinDelay() {
            return rejoinDelay;
        }

        public void setRejoinDelay(@Nullable String rejoinDelay) {
            this.rejoinDelay = rejoinDelay;
        }
    }
}
